// The compiled binary's worker entry: every part, embedded with the binary (scripts/compile.ts), where
// nothing is read from disk and a part costs nothing until it runs.

import { ALL_PARTS } from "../session/all_parts.ts";
import { serveWorker } from "./worker.ts";

serveWorker(ALL_PARTS);
