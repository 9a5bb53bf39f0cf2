// `npm start`'s first step: on a Node older than package.json's `engines` (Effect 4 needs 22.19),
// one clear line and exit 1, before the build and before any Effect module could fail with a stack.
// CommonJS and plain syntax, so that any Node that can run npm can run it.
"use strict"
const wanted = require("../../package.json").engines.node
const version = (text) => (/(\d+)\.(\d+)\.(\d+)/.exec(text) || []).slice(1, 4).map(Number)
const [major, minor, patch] = version(wanted)
const [hasMajor, hasMinor, hasPatch] = version(process.versions.node)
const older = hasMajor !== major ? hasMajor < major : hasMinor !== minor ? hasMinor < minor : hasPatch < patch
if (older) {
  console.error(`hotel-booking-api needs Node.js ${wanted}; this is Node.js ${process.version}: install Node.js 24 LTS (or 22.19+) and run npm start again`)
  process.exit(1)
}
