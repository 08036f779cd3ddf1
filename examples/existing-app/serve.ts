/**
 * Runs the application on a SQLite file: `npx tsx --conditions=scimkit-source examples/existing-app/serve.ts`
 * (`PORT`, default 8080; `DATABASE`, default `app.db`). It prints a bearer token for the `demo` organization.
 */
import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { createTokenStore } from "scimkit";
import { registerSqliteFunctions } from "scimkit/sql";
import { createApp } from "./app.js";
import { migrate } from "./migrate.js";

const database = new Database(process.env["DATABASE"] ?? "app.db");
// SCIM filters fold case as JavaScript does, through a function registered on the connection.
registerSqliteFunctions(database);
const db = new Kysely<object>({ dialect: new SqliteDialect({ database }) });
await migrate(db);

const tokens = createTokenStore();
const { token } = await tokens.issue("demo", { label: "existing-app example" });
const app = await createApp(db, { auth: tokens });
const port = Number(process.env["PORT"] ?? 8080);
app.listen(port, () => {
  console.log(`The application's own users: http://localhost:${port}/app/demo/users`);
  console.log(`SCIM base URL: http://localhost:${port}/scim/Organizations/demo/v2`);
  console.log(`Bearer token for demo (shown once): ${token}`);
});
