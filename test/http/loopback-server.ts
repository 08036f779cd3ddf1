/**
 * An app on a real HTTP server on 127.0.0.1, as the host serves it: with `deferContinue` as its
 * `checkContinue` listener. For the tests of what goes over the wire (resets, 100 Continue,
 * bounds on what is read), which supertest cannot show.
 */
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { deferContinue } from "../../src/http/body-parsing/defer-continue.js";

/** A listening server: its port, `http://127.0.0.1:{port}`, and how to stop it, open connections included. */
export interface LoopbackServer {
  readonly port: number;
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves `app` on a free port of 127.0.0.1; `deferContinue: false` leaves Node to send `100 Continue` itself. */
export async function listenOnLoopback(app: RequestListener, options: { readonly deferContinue?: boolean } = {}): Promise<LoopbackServer> {
  const server = createServer(app);
  if (options.deferContinue !== false) server.on("checkContinue", deferContinue(app));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
