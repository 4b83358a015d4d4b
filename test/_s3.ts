// A real S3-compatible server (s3rver) on loopback for tests, with a fresh bucket in a temp folder.
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";

/** A running s3rver and the environment that points @aws-sdk/client-s3 at it. */
export interface S3Server {
  endpoint: string;
  bucket: string;
  env: { S3_ENDPOINT: string; S3_FORCE_PATH_STYLE: string; AWS_REGION: string };
  stop(): Promise<void>;
  /** Starts it again on the same port and folder (after a stop, for outage tests). */
  restart(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1 with one bucket; the AWS SDK finds s3rver's fixed test credentials in env. */
export async function startS3(bucket = "filing-data"): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), "s3rver-"));
  process.env.AWS_ACCESS_KEY_ID ??= "S3RVER";
  process.env.AWS_SECRET_ACCESS_KEY ??= "S3RVER";
  let server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: { S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: "true", AWS_REGION: "us-east-1" },
    async stop() {
      // An outage, not a graceful shutdown: drop keep-alive connections too, or close waits on clients under load.
      const closing = server.close();
      (server as unknown as { httpServer?: import("node:http").Server }).httpServer?.closeAllConnections();
      await closing;
    },
    async restart() {
      server = new S3rver({ address: "127.0.0.1", port, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
      await server.run();
    },
  };
}

/** Removes a test folder. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
