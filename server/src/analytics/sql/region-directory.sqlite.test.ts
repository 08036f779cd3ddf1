import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "vitest";
import { sqlStore } from "scimkit/sql";
import { regionDirectoryBehaviour } from "./region-directory-behaviour.fixture.js";

describe("the region directory replica on SQLite", () => {
  // A file, not `:memory:`: the checks close the store and open it again, and open two at once, as
  // processes of one host do; in worker threads, as a host opens it.
  regionDirectoryBehaviour({
    async database() {
      const directory = mkdtempSync(join(tmpdir(), "scimkit-region-directory-"));
      const file = join(directory, "scim.db");
      return {
        open: () => sqlStore({ sqlite: file }),
        async drop() {
          rmSync(directory, { recursive: true, force: true });
        },
      };
    },
  });
});
