// A client that never reads its answers (issue 39): sockets that pipeline one request over and over without reading a
// byte, reopened as soon as the gateway closes them, for a bounded time. Run as its own process by bench/unread.ts;
// prints one JSON line of what it did.
import { connect, type Socket } from "node:net";

const [port, path, sockets, seconds, key] = process.argv.slice(2) as [string, string, string, string, string | undefined];
const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${key ? `Authorization: Bearer ${key}\r\n` : ""}\r\n`;
const chunk = Buffer.from(request.repeat(Math.ceil(16384 / request.length)));
const until = Date.now() + Number(seconds) * 1000;
let opened = 0;
let closedByServer = 0;
let sentBytes = 0;
const live = new Set<Socket>();

function open(): void {
  if (Date.now() >= until) return;
  opened++;
  // From an address of its own, as an attacker is another host than the normal client (the gateway refuses an address
  // whose connections it keeps closing).
  const socket = connect({ port: Number(port), host: "127.0.0.1", localAddress: "127.0.0.2" });
  live.add(socket);
  socket.pause(); // never read: the kernel's buffers fill, then the gateway's would
  socket.on("error", () => {});
  socket.on("close", () => {
    live.delete(socket);
    if (Date.now() < until) {
      closedByServer++;
      setTimeout(open, 5);
    }
  });
  const pump = () => {
    while (Date.now() < until && !socket.destroyed) {
      sentBytes += chunk.length;
      if (!socket.write(chunk)) return void socket.once("drain", pump);
    }
  };
  socket.on("connect", pump);
}

for (let i = 0; i < Number(sockets); i++) open();
setTimeout(() => {
  for (const socket of live) socket.destroy();
  console.log(JSON.stringify({ opened, closed_by_server: closedByServer, sent_mb: Math.round(sentBytes / 1e5) / 10 }));
  process.exit(0);
}, Number(seconds) * 1000 + 100);
