import { serve } from "h3";
import { buildTestData, testGateway } from "../test/_gateway.ts";
const { dataDir } = await buildTestData();
const gateway = testGateway(dataDir, { env: { FREE_RATE_PER_MINUTE: process.env.FREE_RATE_PER_MINUTE ?? "0" } });
const { key } = await gateway.keys.create("bench");
const server = serve(gateway.app, { port: 0, hostname: "127.0.0.1", silent: true });
await server.ready();
console.log(JSON.stringify({ url: server.url, key }));
setTimeout(() => process.exit(0), Number(process.env.LIFE ?? 20000));
