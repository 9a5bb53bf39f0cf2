import * as fs from "node:fs"
import * as path from "node:path"

/**
 * What the service writes under `DATA_DIR` is its user's alone: the `.eml` files carry live manage
 * links, the generated secret signs every token. Folders 0700, files 0600. `DATA_DIR` itself keeps
 * its mode: run as root, the embedded PostgreSQL's user must enter it to reach its cluster.
 */
export const PRIVATE_FOLDER = 0o700
export const PRIVATE_FILE = 0o600

/**
 * `dir` made (its parents as usual) or set 0700, and every file in it 0600: an older start may
 * have left them readable by others.
 */
export const privateFolder = (dir: string) => {
  fs.mkdirSync(path.dirname(dir), { recursive: true })
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_FOLDER })
  fs.chmodSync(dir, PRIVATE_FOLDER)
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile()) fs.chmodSync(path.join(dir, entry.name), PRIVATE_FILE)
  }
}
