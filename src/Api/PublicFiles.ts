import { existsSync } from "node:fs"

/**
 * The project's `public/` folder (the guest pages' files): the nearest above this module. Under
 * tsx and vitest that is from src/Api/, once built from dist/, where the bundle puts every module
 * at the root (package.json's `build`): no path is spelled from one module's depth.
 */
const publicFolder = (): URL => {
  for (let folder = new URL(".", import.meta.url); ; folder = new URL("..", folder)) {
    const candidate = new URL("public/", folder)
    if (existsSync(candidate)) return candidate
    if (folder.pathname === "/") throw new Error(`no public/ folder above ${import.meta.url}`)
  }
}

const PUBLIC = publicFolder()

/** A file of `public/`. */
export const publicFile = (file: string) => new URL(file, PUBLIC)
