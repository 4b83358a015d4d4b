// A real S3-compatible server (s3rver) on loopback for tests, with a fresh bucket in a temp folder; and a stand-in
// in front of it that adds what S3 guarantees and s3rver 3.7.1 lacks: conditional writes, whole-object reads.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type IncomingMessage } from "node:http";
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
  /** Stops it for good and removes its folder. */
  close(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1 with one bucket; the AWS SDK finds s3rver's fixed test credentials in env. */
export async function startS3(bucket = "filing-data"): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), "s3rver-"));
  process.env.AWS_ACCESS_KEY_ID ??= "S3RVER";
  process.env.AWS_SECRET_ACCESS_KEY ??= "S3RVER";
  let server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    // An outage, not a graceful shutdown: drop keep-alive connections too, or close waits on clients under load.
    const closing = server.close();
    (server as unknown as { httpServer?: import("node:http").Server }).httpServer?.closeAllConnections();
    await closing;
  };
  return {
    endpoint,
    bucket,
    env: { S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: "true", AWS_REGION: "us-east-1" },
    stop,
    async restart() {
      server = new S3rver({ address: "127.0.0.1", port, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
      await server.run();
    },
    async close() {
      await stop();
      removeDir(directory);
    },
  };
}

/** The stand-in in front of s3rver: its own endpoint and env, how many conditional PUTs it refused, every request. */
export interface ConditionalS3 {
  endpoint: string;
  env: S3Server["env"];
  refused(): number;
  /** Every request it passed or refused: method and path (`/bucket/key`), for counting an object store's writes. */
  requests: { method: string; path: string }[];
  /**
   * Answers the next `count` requests with a connection reset, as requests sent on pooled connections the store has
   * closed meanwhile are (S3 closes idle ones; a client whose event loop was busy has not read the close yet).
   */
  resetNext(count: number): void;
  stop(): Promise<void>;
}

/**
 * What S3 guarantees and s3rver 3.7.1 lacks, in front of it: conditional writes (s3rver ignores `If-None-Match` on
 * PUT; here a PUT with `If-None-Match: *` of a key that exists is answered 412 PreconditionFailed, as S3 does) and
 * whole-object reads and writes (s3rver writes an object in place, so a reader could see half of it; here the
 * requests for one object are taken one at a time). Every request, signed as it came (Host included, so the
 * signature still holds), is answered by s3rver.
 */
export async function startConditionalS3(upstream: S3Server): Promise<ConditionalS3> {
  const target = new URL(upstream.endpoint);
  let refused = 0;
  let resets = 0;
  const requests: ConditionalS3["requests"] = [];
  const queues = new Map<string, Promise<unknown>>();
  /** Runs `task` after every earlier task for the same object. */
  const inTurn = <T>(object: string, task: () => Promise<T>): Promise<T> => {
    const run = (queues.get(object) ?? Promise.resolve()).then(task, task);
    const settled = run.catch(() => {});
    queues.set(object, settled);
    void settled.then(() => queues.get(object) === settled && queues.delete(object));
    return run;
  };
  const forward = (req: { method: string; url: string; headers: IncomingMessage["headers"] }, body?: Buffer) =>
    new Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer }>((resolve, reject) => {
      const out = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, async (res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of res) chunks.push(chunk as Buffer);
        resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) });
      });
      out.once("error", reject);
      out.end(body);
    });
  const server = createServer(async (req, res) => {
    if (resets > 0) {
      resets--;
      req.socket.resetAndDestroy();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const incoming = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers };
    const [path, query = ""] = incoming.url.split("?");
    requests.push({ method: incoming.method, path: decodeURIComponent(path!) });
    // `/bucket/key…` without a sub-resource query is one object; bucket-level calls (list, bulk delete) pass straight.
    const object = /^\/[^/]+\/./.test(path!) && !/(^|&)(delete|uploads|uploadId)/.test(query) ? path! : null;
    const answer = async () => {
      // An unsigned HEAD: s3rver lets anonymous requests through, and the client's signature covers only its own PUT.
      if (incoming.method === "PUT" && req.headers["if-none-match"] === "*" && (await forward({ method: "HEAD", url: path!, headers: { host: req.headers.host } })).status === 200) {
        refused++;
        const xml = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>`;
        return { status: 412, headers: { "content-type": "application/xml" }, body: Buffer.from(xml) };
      }
      return forward(incoming, Buffer.concat(chunks));
    };
    try {
      const out = await (object ? inTurn(object, answer) : answer());
      res.writeHead(out.status, out.headers).end(out.body);
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    env: { ...upstream.env, S3_ENDPOINT: endpoint },
    refused: () => refused,
    requests,
    resetNext: (count) => {
      resets = count;
    },
    stop: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Removes a test folder. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
