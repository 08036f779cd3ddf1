import { describe, expect, it } from "vitest";
import { isConnectionFailure } from "./is-connection-failure.js";

const withCode = (code: string, message = "x"): Error => Object.assign(new Error(message), { code });

describe("isConnectionFailure", () => {
  it.each([
    ["57P01 admin_shutdown (restart, pg_terminate_backend)", withCode("57P01", "terminating connection due to administrator command")],
    ["57P03 cannot_connect_now (starting up)", withCode("57P03", "the database system is starting up")],
    ["08006 connection_failure", withCode("08006")],
    ["53300 too_many_connections", withCode("53300")],
    ["ECONNREFUSED", withCode("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432")],
    ["ECONNRESET", withCode("ECONNRESET", "read ECONNRESET")],
    ["Node's refusals of every address of localhost", new AggregateError([withCode("ECONNREFUSED"), withCode("ECONNREFUSED")])],
    ["a socket closed under a query", new Error("Connection terminated unexpectedly")],
    ["pg's connect timeout", new Error("Connection terminated due to connection timeout")],
    ["pg-pool's acquisition timeout", new Error("timeout exceeded when trying to connect")],
    ["a client whose connection already failed", new Error("Client has encountered a connection error and is not queryable")],
  ])("%s is one", (_name, error) => {
    expect(isConnectionFailure(error)).toBe(true);
  });

  it.each([
    ["23505 unique_violation", withCode("23505", "duplicate key value violates unique constraint")],
    ["40P01 deadlock_detected (retried, not unavailable)", withCode("40P01")],
    ["08P01 protocol_violation (a bug)", withCode("08P01")],
    ["22P05 untranslatable_character", withCode("22P05")],
    ["a message that merely mentions a connection, with a SQLSTATE", withCode("42P01", "Connection terminated")],
    ["a plain error", new Error("boom")],
    ["not an error", "Connection terminated"],
    ["null", null],
  ])("%s is not", (_name, error) => {
    expect(isConnectionFailure(error)).toBe(false);
  });
});
