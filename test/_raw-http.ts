// Raw HTTP/1.1 over a socket, for what fetch cannot send or hides: CONNECT, unknown methods, the status line itself.
import { connect } from "node:net";

/** Sends raw bytes to a server and returns everything it answers before closing (or `waitMs`). */
export function raw(port: number, bytes: string, waitMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (d) => (answer += d.toString()));
    socket.on("close", () => resolve(answer));
    socket.on("error", () => resolve(answer));
    socket.write(bytes);
    setTimeout(() => socket.destroy(), waitMs);
  });
}
