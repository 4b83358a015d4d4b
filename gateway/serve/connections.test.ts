import { createServer, IncomingMessage } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { H3 } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeEdgar } from "../../test/_edgar.ts";
import { buildTestData, testGateway } from "../../test/_gateway.ts";
import { memoryLogger } from "../../test/_logger.ts";
import { removeDir } from "../../test/_s3.ts";
import { loadConfig } from "../config.ts";
import { serveHttp } from "./listen.ts";
import { guardConnections, type ConnectionLimits } from "./connections.ts";

// What clients that never read their answers can make the gateway hold (issue 39): an attack pass pipelined thousands
// of requests on sockets it never read and took the gateway from 216 MB to 1.3 GB. Each case runs the real gateway
// on a real port, with the port's own rules (serveHttp), and counts the requests that reached the app.

/** Apple's statements with every value they have had: 1.7 MB an answer, more than loopback's socket buffers take in a few. */
const LARGE = "/financials?ticker=AAPL&history=true";

describeEdgar("connections that do not read their answers", () => {
  let data: { dataDir: string; mirror: string };
  let gw: ReturnType<typeof testGateway>;
  let key: string;
  beforeAll(async () => {
    data = await buildTestData();
    gw = testGateway(data.dataDir);
    key = (await gw.keys.create("connections")).key;
  });
  afterAll(() => {
    gw.close();
    for (const dir of [data.dataDir, data.mirror]) removeDir(dir);
  });

  /** The gateway on a port with `limits` over the defaults; `reached` counts the requests that got to the app. */
  async function serving(limits: Partial<ConnectionLimits> = {}) {
    let reached = 0;
    const counting = new H3().all("/**", (event) => (reached++, gw.app.fetch(event.req)));
    const config = loadConfig({});
    const logger = memoryLogger();
    const server = await serveHttp(counting, { port: 0, host: "127.0.0.1", timeouts: config.timeouts, connections: { ...config.connections, ...limits } }, logger.log.bind(logger));
    const port = Number(new URL(server.url!).port);
    return { port, reached: () => reached, close: () => server.close(true) };
  }

  const request = (path: string, auth = true) => `GET ${path} HTTP/1.1\r\nHost: t\r\n${auth ? `Authorization: Bearer ${key}\r\n` : ""}\r\n`;

  it("closes a client far ahead of its answers before its requests cost anything", async () => {
    const server = await serving();
    try {
      // 2,000 unpaid requests in one write, never read: on the code before issue 39 every one was answered and held.
      const client = unread(server.port, request("/earnings/summary?ticker=AAPL", false).repeat(2000));
      expect(await client.closedWithin(5000)).toBe(true);
      expect(server.reached()).toBeLessThanOrEqual(loadConfig({}).connections.inFlight);
    } finally {
      await server.close();
    }
  });

  it("answers a client that pipelines within the limits, every answer in order", async () => {
    const server = await serving();
    try {
      const limits = Array.from({ length: 30 }, (_, i) => (i % 10) + 1);
      const answers = await readAll(server.port, limits.map((n) => request(`/filings/latest?ticker=AAPL&limit=${n}`)).join(""), limits.length);
      expect(answers.map((a) => a.status)).toEqual(limits.map(() => 200));
      expect(answers.map((a) => (JSON.parse(a.body) as { data: unknown[] }).data.length)).toEqual(limits);
    } finally {
      await server.close();
    }
  });

  it("closes a connection that stops reading once its answers stall past the write timeout, serving others meanwhile", async () => {
    const server = await serving({ writeStallMs: 1000 });
    try {
      const stalled = unread(server.port, request(LARGE).repeat(8));
      const started = performance.now();
      const meanwhile = await fetch(`http://127.0.0.1:${server.port}/earnings/summary?ticker=WMT&period=annual`, { headers: { authorization: `Bearer ${key}` } });
      expect(meanwhile.status).toBe(200);
      expect(await stalled.closedWithin(5000)).toBe(true);
      expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      await server.close();
    }
  });

  it("closes the stalled connections holding most once answers held for all exceed the budget, before any write timeout", async () => {
    const server = await serving({ writeStallMs: 60_000, bufferedBytes: 4 * 1024 * 1024 });
    try {
      const clients = Array.from({ length: 6 }, () => unread(server.port, request(LARGE).repeat(8)));
      const closed = await Promise.all(clients.map((c) => c.closedWithin(4000)));
      // Each holds up to four 1.7 MB answers beyond what the kernel takes: at most two fit in 4 MB.
      expect(closed.filter(Boolean).length).toBeGreaterThanOrEqual(4);
      for (const c of clients) c.socket.destroy();
    } finally {
      await server.close();
    }
  });

  it("refuses an address's new connections as they open once it has had its burst of connections closed, until its bucket refills", async () => {
    const server = await serving({ closedPerAddress: { burst: 2, perMinute: 60 } });
    const far = () => unread(server.port, request("/earnings/summary?ticker=AAPL", false).repeat(200));
    const answered = () => readAll(server.port, request("/earnings/summary?ticker=WMT&period=annual"), 1).then(([a]) => a!.status, () => "closed");
    try {
      for (let i = 0; i < 2; i++) expect(await far().closedWithin(5000)).toBe(true);
      const before = server.reached();
      // Closed as it opens: its request never reaches the app.
      expect(await answered()).toBe("closed");
      expect(server.reached()).toBe(before);
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // one token a second
      expect(await answered()).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("behind a proxy (every client on its address) refuses no connection for the others' closes", async () => {
    const server = await serving({ closedPerAddress: null });
    try {
      for (let i = 0; i < 25; i++) expect(await unread(server.port, request("/earnings/summary?ticker=AAPL", false).repeat(200)).closedWithin(5000)).toBe(true);
      const [answer] = await readAll(server.port, request("/earnings/summary?ticker=WMT&period=annual"), 1);
      expect(answer!.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("a connection closed for being far ahead, on Node's own server", () => {
  it("makes no request of what it sent after the limit, and its aborted requests capture no stack", async () => {
    // Every request Node parses is made an IncomingMessage (in its parser, before any listener sees it).
    let made = 0;
    class Counted extends IncomingMessage {
      constructor(socket: Socket) {
        super(socket);
        made++;
      }
    }
    const server = createServer({ IncomingMessage: Counted }, (_req, res) => void setTimeout(() => res.end("ok"), 1000));
    const limits = { ...loadConfig({}).connections };
    const stop = guardConnections(server, limits, memoryLogger().log);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const stackTraceLimit = Error.stackTraceLimit;
    try {
      // 2,000 requests (74 KB) in one write: Node reads 64 KB at once, about 1,700 of them, and parsed every one
      // before the parse stopped at the limit.
      const client = unread((server.address() as AddressInfo).port, "GET / HTTP/1.1\r\nHost: t\r\n\r\n".repeat(2000));
      expect(await client.closedWithin(5000)).toBe(true);
      expect(made).toBeGreaterThan(limits.ahead);
      expect(made).toBeLessThanOrEqual(limits.ahead + 3); // the one answered, those waiting, the one past the limit, the next
      expect(Error.stackTraceLimit).toBe(stackTraceLimit); // lowered only while Node aborts the closed socket's requests
    } finally {
      stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/**
 * A socket that sends `bytes` and never reads; `closedWithin(ms)` tells whether the gateway closed it by then. A
 * socket that does not read learns of the close only when it writes: it sends an empty line (which HTTP/1.1 lets a
 * client send between requests) every 50 ms.
 */
function unread(port: number, bytes: string): { socket: Socket; closedWithin(ms: number): Promise<boolean> } {
  const socket = connect(port, "127.0.0.1");
  socket.pause();
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.write(bytes);
  return {
    socket,
    closedWithin(ms) {
      const probe = setInterval(() => socket.writable && socket.write("\r\n"), 50);
      const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), ms));
      return Promise.race([closed.then(() => true), timeout]).finally(() => {
        clearInterval(probe);
        socket.destroy();
      });
    },
  };
}

/** Sends `bytes` and reads `count` HTTP/1.1 answers (Content-Length or chunked bodies) from the socket, in order. */
function readAll(port: number, bytes: string, count: number): Promise<{ status: number; body: string }[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let buffer = Buffer.alloc(0);
    const answers: { status: number; body: string }[] = [];
    socket.on("error", reject);
    socket.on("close", () => reject(new Error(`closed after ${answers.length} answers`)));
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (let answer = takeAnswer(); answer; answer = takeAnswer()) answers.push(answer);
      if (answers.length >= count) {
        socket.destroy();
        resolve(answers);
      }
    });
    socket.write(bytes);

    function takeAnswer(): { status: number; body: string } | null {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return null;
      const head = buffer.subarray(0, end).toString("latin1");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)![1]);
      const length = /\r\ncontent-length: (\d+)/i.exec(head);
      if (length) {
        const total = end + 4 + Number(length[1]);
        if (buffer.length < total) return null;
        const body = buffer.subarray(end + 4, total).toString();
        buffer = buffer.subarray(total);
        return { status, body };
      }
      // Chunked: size lines and data until the zero-size chunk.
      let at = end + 4;
      let body = "";
      for (;;) {
        const line = buffer.indexOf("\r\n", at);
        if (line < 0) return null;
        const size = parseInt(buffer.subarray(at, line).toString(), 16);
        if (buffer.length < line + 2 + size + 2) return null;
        if (size === 0) {
          buffer = buffer.subarray(line + 4);
          return { status, body };
        }
        body += buffer.subarray(line + 2, line + 2 + size).toString();
        at = line + 2 + size + 2;
      }
    }
  });
}
