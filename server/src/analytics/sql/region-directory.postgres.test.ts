import { sqlStore } from "scimkit/sql";
import { createTestSchema, describePostgres } from "../../../../src/store/sql/postgres-test-database.fixture.js";
import { regionDirectoryBehaviour } from "./region-directory-behaviour.fixture.js";

describePostgres("the region directory replica on PostgreSQL", (url) => {
  // A schema per check: the checks count every row of the replica. Each store opened gets a pool
  // of its own, as a process would; `drop()` ends them all.
  regionDirectoryBehaviour({
    async database() {
      const schema = await createTestSchema(url);
      return { open: () => sqlStore({ postgres: schema.pool() }), drop: () => schema.drop() };
    },
  });
});
