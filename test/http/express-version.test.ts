import express from "express";
import { describe, expect, it } from "vitest";
import { createScimRouter } from "../../src/http/create-scim-router.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import { staticTokenVerifier } from "../../src/auth/static-token-verifier.js";

describe("the Express under test", () => {
  it("is the major version this project runs", () => {
    // Express 5 dropped `express.query`; Express 4 still exports it.
    expect("query" in express ? "4" : "5").toBe(process.env["SCIMKIT_EXPRESS_MAJOR"]);
  });

  it("is also the one the router is built with", () => {
    const router = createScimRouter({ store: memoryStore(), auth: staticTokenVerifier({ acme: "t" }) });
    // Express 4's Router keeps its methods on the prototype (process_params among them); Express 5's router package does not.
    const isExpress4Router = "process_params" in Object.getPrototypeOf(router);
    expect(isExpress4Router ? "4" : "5").toBe(process.env["SCIMKIT_EXPRESS_MAJOR"]);
  });
});
