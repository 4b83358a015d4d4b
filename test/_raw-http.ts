// Raw HTTP/1.1 over a socket, for what fetch cannot send or hides: CONNECT, unknown methods, the status line itself.
import { connect } from "node:net";

/** Sends raw bytes to a server and returns everything it answers before closing (or `waitMs`). */
export function raw(port: number, bytes: string, waitMs: number): Promise<string> {
  return rawInPieces(port, [bytes], 0, waitMs);
}

/** The same, the bytes sent as `pieces` with `gapMs` between them (each its own packet on loopback). */
export function rawInPieces(port: number, pieces: (string | Buffer)[], gapMs: number, waitMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const answer: Buffer[] = [];
    socket.setNoDelay(true);
    socket.on("data", (d: Buffer) => answer.push(d));
    socket.on("close", () => resolve(Buffer.concat(answer).toString()));
    socket.on("error", () => resolve(Buffer.concat(answer).toString()));
    pieces.forEach((piece, i) => setTimeout(() => socket.writable && socket.write(piece), i * gapMs));
    setTimeout(() => socket.destroy(), waitMs);
  });
}
