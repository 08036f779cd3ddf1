/**
 * A real HTTP server on 127.0.0.1 for the outbound tests: answers each request, once its body is
 * read, with `reply`, and lists what it got (`"POST /events"`), so a test can say nothing reached it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface AnsweringServer {
  readonly port: number;
  /** Method and path of each request, in order. */
  readonly hits: string[];
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
}

export async function answeringServer(reply: (request: IncomingMessage, response: ServerResponse) => void): Promise<AnsweringServer> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    request.resume();
    request.on("end", () => reply(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
