# Node 24 LTS on Debian 13 (trixie), slim: the version the tests run on
FROM node:24.22.3-trixie-slim
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci applies them to the installed packages (postinstall)
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
# compiled once here; the container starts the compiled service without building again
RUN npm run build && mkdir -p var && chown node var
USER node
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
# node itself as PID 1: SIGTERM reaches the service (graceful drain) and its JSON lines reach stdout directly
CMD ["node", "--enable-source-maps", "--max-semi-space-size=64", "--no-allocation-site-pretenuring", "dist/main.js"]
