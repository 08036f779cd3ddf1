/**
 * A real HTTP server publishing a JSON Web Key Set (node:http), whose keys and answer a test can
 * change, counting the fetches: the authorization server a `jwtVerifier` talks to in the tests.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type CryptoKey, type JSONWebKeySet, type JWK, type JWTPayload, SignJWT } from "jose";

/** A signing key of the test authorization server: its private key, and its public JWK with `kid` and `alg`. */
export interface TestKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

/** A key pair for `alg`, published under `kid`. */
export async function testKey(kid: string, alg: "RS256" | "ES256" | "EdDSA" = "ES256"): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, alg === "EdDSA" ? { crv: "Ed25519" } : {});
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

/** A JWT with `claims`, signed by `key` (its `kid` and `alg` in the header, unless `header` says otherwise). */
export function signToken(key: TestKey, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
}

/** The running JWKS server. */
export interface JwksServer {
  /** Its key set URL. */
  readonly url: string;
  /** How many times the key set was fetched. */
  readonly fetches: number;
  /** Publishes these keys from the next fetch on. */
  publish(keys: readonly TestKey[]): void;
  /** Answers every fetch with this status (and no key set) until called with 200. */
  failWith(status: number): void;
  close(): Promise<void>;
}

/** Starts a JWKS server on a free loopback port, publishing `keys`. */
export async function startJwksServer(keys: readonly TestKey[]): Promise<JwksServer> {
  let published: JSONWebKeySet = { keys: keys.map((key) => key.publicJwk) };
  let status = 200;
  let fetches = 0;
  const server: Server = createServer((_request, response) => {
    fetches += 1;
    if (status !== 200) {
      response.writeHead(status, { "content-type": "text/plain" }).end("unavailable");
      return;
    }
    response.writeHead(200, { "content-type": "application/jwk-set+json" }).end(JSON.stringify(published));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get fetches() {
      return fetches;
    },
    publish(next) {
      published = { keys: next.map((key) => key.publicJwk) };
    },
    failWith(next) {
      status = next;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
