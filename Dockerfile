FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# compiled once here; the container starts the compiled service without building again
RUN npm run build && mkdir -p var && chown node var
USER node
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
CMD ["npm", "start", "--ignore-scripts"]
