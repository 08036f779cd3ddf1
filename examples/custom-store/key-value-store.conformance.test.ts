/**
 * The example store against the whole `ResourceStore` contract: every test of scimkit's
 * conformance kit, none skipped. This file is all an adapter author needs to write to know the
 * store is done — swap `memoryBackend()` for a client of the real database.
 */
import { describeStoreConformance } from "scimkit/testkit";
import { memoryBackend } from "./key-value-backend.js";
import { keyValueStore } from "./key-value-store.js";

describeStoreConformance({
  name: "key-value example",
  // A fresh backend per test; a shared persistent one would work too, since every test uses
  // organizations of its own.
  createStore: () => keyValueStore(memoryBackend()),
});
