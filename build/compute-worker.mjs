// Worker threads start without the loader the main thread runs under: register tsx here, then load the TypeScript worker.
import { register } from "tsx/esm/api";

register();
await import("./compute-worker.ts");
