// Starting the gateway on a port: load the snapshot, start watching current.json, listen, stop cleanly on signals.
import { serve } from "h3";
import { createLogger } from "../logging/log.ts";
import type { GatewayConfig } from "./config.ts";
import { createGateway } from "./server.ts";

/** Serves the gateway until SIGINT/SIGTERM; resolves with the URL it listens on. */
export async function listen(config: GatewayConfig, pollMs = config.snapshotPollMs): Promise<{ url: string; close(): Promise<void> }> {
  const logger = createLogger(config.logLevel);
  const log = logger.log.bind(logger);
  const gateway = createGateway(config, { log });
  await gateway.snapshots.refresh().catch((error: Error) => log("warn", "no_snapshot_yet", { error: error.message }));
  gateway.snapshots.watch(pollMs);
  const server = serve(gateway.app, { port: config.port, hostname: config.host, silent: true });
  await server.ready();
  const url = server.url ?? `http://${config.host}:${config.port}`;
  log("info", "listening", { url, public_base_url: config.publicBaseUrl, snapshot: gateway.snapshots.held?.pointer.build_id ?? null });
  const close = async () => {
    gateway.close();
    await server.close(true);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void close().then(() => process.exit(0)));
  return { url, close };
}
