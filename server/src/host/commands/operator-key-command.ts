/**
 * `scimkit operator-key rotate`: a new operator key for the analytics interface, printed once on
 * stdout, and every other operator key deleted — so the old one fails from the hosts' next request
 * on, as after the API's `POST /operator-key/rotate`. Unlike the API it needs no current key: whoever
 * holds DATABASE_URL is the operator already, and a lost key is the case this is for.
 */
import { newApiKey } from "@scimkit/server";
import type { HostCommand } from "./host-command.js";
import { auditedCommandWrite } from "./audited-command-write.js";
import { noSubcommand, unknownSubcommand, usageError } from "./command-error.js";
import { withCommandStore } from "./open-command-store.js";
import { parseCommandArgs } from "./parse-command-args.js";

const USAGE = [
  "Usage: scimkit operator-key rotate [--json]",
  "",
  "Issues a new operator key for the analytics interface, printed once on stdout, and deletes",
  "every other operator key: the old one answers 401 from the next request on.",
  "",
  "Options:",
  "  --json      One JSON object on stdout, for scripts",
  "  -h, --help  Show this text",
  "",
  "The store is the one DATABASE_URL names, as for `scimkit serve`.",
].join("\n");

export const operatorKeyCommand: HostCommand = {
  name: "operator-key",
  summary: "rotate: a new operator key for the analytics interface; the old one stops at once",
  takesArguments: true,
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, { json: { type: "boolean" }, help: { type: "boolean", short: "h" } });
    if (values.help) {
      console.log(USAGE);
      return;
    }
    const [subcommand, ...rest] = positionals;
    if (subcommand === undefined) throw noSubcommand();
    if (subcommand !== "rotate") throw unknownSubcommand(subcommand);
    if (rest.length > 0) throw usageError(`unexpected argument ${JSON.stringify(rest[0])}`);
    await withCommandStore(async ({ analytics, audit }, settings) => {
      // In one step: there is never a moment without an operator key, nor one with the old beside the new.
      const issued = newApiKey({ kind: "operator" }, new Date().toISOString());
      const write = {
        operation: "cli.rotateOperatorKey",
        orgId: "",
        resourceType: "ApiKey",
        resourceId: issued.record.id,
        status: 200,
      } as const;
      const retired = await auditedCommandWrite(audit, write, () => analytics.replaceOperatorKeys(issued.record));
      if (values.json === true) console.log(JSON.stringify({ apiKey: issued.key, retired }, null, 2));
      else {
        console.log(`Operator key rotated; ${retired} old key(s) deleted, failing from the next request on`);
        console.log(`Operator key (shown once): ${issued.key}`);
      }
      // A configured key is registered again by every host start: it would come back.
      if (settings.operatorKey !== undefined)
        console.error(
          "scimkit: warning: SCIMKIT_OPERATOR_KEY is set: each host registers it again when it starts; remove it from the hosts' environment",
        );
    });
  },
};
