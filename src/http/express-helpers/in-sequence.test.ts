/**
 * `inSequence`: middleware run one after another in one router layer behaves as the same
 * middleware in layers of their own — order, errors (passed, thrown, rejected), `next("router")` —
 * on a real Express app over HTTP.
 */
import express, { type RequestHandler } from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { inSequence } from "./in-sequence.js";

function appWith(handlers: readonly RequestHandler[]): express.Express {
  const app = express();
  const router = express.Router();
  router.use(inSequence(handlers));
  router.get("/", (_request, response) => {
    response.json({ seen: response.locals["seen"] ?? [] });
  });
  app.use(router);
  app.get("/", (_request, response) => {
    response.json({ outside: true, seen: response.locals["seen"] ?? [] });
  });
  app.use(((error, _request, response, _next) => {
    response.status(500).json({ error: (error as Error).message, seen: response.locals["seen"] ?? [] });
  }) as express.ErrorRequestHandler);
  return app;
}

const mark =
  (name: string): RequestHandler =>
  (_request, response, next) => {
    response.locals["seen"] = [...((response.locals["seen"] as string[] | undefined) ?? []), name];
    next();
  };

describe("inSequence", () => {
  it("runs every handler in order, then the routes after it", async () => {
    const answer = await request(appWith([mark("a"), mark("b"), mark("c")])).get("/");
    expect(answer.body).toEqual({ seen: ["a", "b", "c"] });
  });

  it("stops at next(error): the error handler gets it and the handlers after it never run", async () => {
    const failing: RequestHandler = (_request, _response, next) => next(new Error("refused"));
    const answer = await request(appWith([mark("a"), failing, mark("c")])).get("/");
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ error: "refused", seen: ["a"] });
  });

  it("passes on what a handler throws, and what its promise rejects with", async () => {
    const throwing: RequestHandler = () => {
      throw new Error("thrown");
    };
    const rejecting: RequestHandler = async () => {
      throw new Error("rejected");
    };
    expect((await request(appWith([mark("a"), throwing, mark("c")])).get("/")).body).toEqual({ error: "thrown", seen: ["a"] });
    expect((await request(appWith([mark("a"), rejecting, mark("c")])).get("/")).body).toEqual({ error: "rejected", seen: ["a"] });
  });

  it('leaves the router at next("router"), as a layer of its own would', async () => {
    const leaving: RequestHandler = (_request, _response, next) => next("router");
    const answer = await request(appWith([mark("a"), leaving, mark("c")])).get("/");
    expect(answer.body).toEqual({ outside: true, seen: ["a"] });
  });

  it("is the handler itself when there is only one", () => {
    const only = mark("a");
    expect(inSequence([only])).toBe(only);
  });
});
