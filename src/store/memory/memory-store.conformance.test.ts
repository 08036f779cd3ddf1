import { describeStoreConformance } from "../../testkit/index.js";
import { memoryStore } from "./memory-store.js";

describeStoreConformance({ name: "memory", createStore: () => memoryStore() });
