// Run by `npm run build` after tsc: converts every tool's schemas once and writes the result next
// to listing.js, where loadListing() finds it at start-up.

import { writeFile } from 'node:fs/promises';
import { ALL_TOOLS } from './index.js';
import { PREBUILT_FILE, prebuild } from './listing.js';

await writeFile(new URL(PREBUILT_FILE, import.meta.url), JSON.stringify(prebuild(ALL_TOOLS)));
