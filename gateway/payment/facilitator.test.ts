// The facilitator's deadline (guardFacilitator): an HTTP facilitator's request is aborted at it, headers or body; any
// other facilitator client is raced against it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { FacilitatorTimeoutError, HTTPFacilitatorClient, type FacilitatorClient } from "@x402/core/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardFacilitator } from "./facilitator.ts";

const DEADLINE_MS = 200;

describe("a facilitator call ends at the deadline", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Answers /supported with its headers and the first bytes of the body, then never ends it.
    server = createServer((_, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"kinds":[');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("an HTTP facilitator whose body stalls: its request is aborted, a FacilitatorTimeoutError", async () => {
    const facilitator = guardFacilitator(new HTTPFacilitatorClient({ url }), DEADLINE_MS);
    const started = performance.now();
    await expect(facilitator.getSupported()).rejects.toBeInstanceOf(FacilitatorTimeoutError);
    expect(performance.now() - started).toBeLessThan(DEADLINE_MS * 10);
  });

  it("any other facilitator that never answers: a FacilitatorTimeoutError", async () => {
    const never = () => new Promise<never>(() => {});
    const client: FacilitatorClient = { verify: never, settle: never, getSupported: never };
    const facilitator = guardFacilitator(client, DEADLINE_MS);
    await expect(facilitator.verify({} as never, {} as never)).rejects.toBeInstanceOf(FacilitatorTimeoutError);
    await expect(facilitator.settle({} as never, {} as never)).rejects.toBeInstanceOf(FacilitatorTimeoutError);
  });
});
