/**
 * `scimkit receivers list|add|remove --org <id>`: an organization's RFC 9967 event receivers
 * (issue 20), in the store the hosts' delivery loops read — so a receiver added here gets its
 * first SET on a host's next pass, no restart. What the operator API's event-receiver operations
 * do, from a shell. The `Authorization` value a receiver needs is read from an environment
 * variable (`--authorization-env`), never from the command line, where `ps` and shell histories
 * would show it; it is never printed nor written to the audit trail.
 */
import { InvalidEventReceiverError, SECURITY_EVENT_URIS, type EventReceiverInput, type SecurityEventUri } from "scimkit/events";
import {
  eventReceiverInputErrors,
  fieldOfInvalidReceiver,
  renderEventReceiver,
  type AnalyticsStore,
  type RenderedEventReceiver,
} from "@scimkit/server";
import { hostEventBounds, hostEventDelivery } from "../host-event-delivery.js";
import type { HostCommand } from "./host-command.js";
import { auditedCommandWrite } from "./audited-command-write.js";
import { failure, noSubcommand, noSuchOrganization, unknownSubcommand, usageError } from "./command-error.js";
import { withCommandStore } from "./open-command-store.js";
import { parseCommandArgs } from "./parse-command-args.js";

const USAGE = [
  "Usage: scimkit receivers <subcommand> --org <id> [options]",
  "",
  "Subcommands:",
  "  list --org <id>                 The organization's security event receivers and where delivery stands",
  "  add --org <id> --url <url>      Register a receiver of its RFC 9967 Security Event Tokens",
  "      --poll                      It polls us (RFC 8936) instead of us pushing to --url (RFC 8935);",
  "                                  needs --authorization-env",
  "      --events <uri,uri>          Only these event URIs (default: every one), e.g.",
  "                                  urn:ietf:params:scim:event:prov:create:notice,urn:ietf:params:scim:event:prov:delete",
  "      --form full|notice          full: the resource; notice (default): what changed, no values",
  "      --audience <aud>            The SETs' aud claim (default: --url)",
  "      --authorization-env <VAR>   Read the Authorization header value from environment variable VAR:",
  "                                  sent with each push, or required of the poller",
  "      --label <text>              What the receiver is",
  "      --from-beginning            Also every event still kept (default: from now on)",
  "  remove --org <id> <receiverId>  Remove a receiver: it gets nothing more",
  "  rotate-key --org <id>           A new key signs the organization's SETs from now on; the old public",
  "                                  key stays in its JWKS for 7 days, for SETs already sent",
  "",
  "Options:",
  "  --json      One JSON object on stdout, for scripts",
  "  -h, --help  Show this text",
  "",
  "The store is the one DATABASE_URL names, as for `scimkit serve`. SCIMKIT_PUBLIC_URL makes a poll",
  "receiver's poll URL absolute. A push receiver's URL may not resolve to a loopback, private,",
  "link-local, CGNAT, unique-local or metadata address unless SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS allows",
  "its host (as for `scimkit serve`), e.g. SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS=127.0.0.1,10.0.0.0/8.",
].join("\n");

const OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  org: { type: "string" },
  url: { type: "string" },
  poll: { type: "boolean" },
  events: { type: "string" },
  form: { type: "string" },
  audience: { type: "string" },
  "authorization-env": { type: "string" },
  label: { type: "string" },
  "from-beginning": { type: "boolean" },
} as const;

type AddOption = "url" | "poll" | "events" | "form" | "audience" | "authorization-env" | "label" | "from-beginning";
const ADD_OPTIONS: readonly AddOption[] = ["url", "poll", "events", "form", "audience", "authorization-env", "label", "from-beginning"];

/** How many arguments each subcommand takes after its name. */
const ARGUMENTS: Readonly<Record<string, readonly string[]>> = { list: [], add: [], remove: ["<receiverId>"], "rotate-key": [] };

/** The option a member of the registration comes from, to name it in a refusal. */
const OPTION_OF: Readonly<Record<keyof EventReceiverInput, string>> = {
  url: "--url",
  delivery: "--poll",
  events: "--events",
  form: "--form",
  audience: "--audience",
  authorization: "--authorization-env",
  label: "--label",
};

const print = (value: unknown): void => console.log(JSON.stringify(value, null, 2));

/** Exit 1 unless the organization exists: a receiver of an organization nobody serves would get nothing. */
async function requireOrganization(analytics: AnalyticsStore, orgId: string): Promise<void> {
  if ((await analytics.getOrganization({ all: true }, orgId)) === undefined) throw noSuchOrganization(orgId);
}

/** The registration the options describe, checked as the operator API checks it; a usage error otherwise. */
function inputOf(values: Partial<Record<AddOption, string | boolean>>, env: NodeJS.ProcessEnv): EventReceiverInput {
  const url = values.url;
  if (typeof url !== "string" || url === "") throw usageError("receivers add needs --url <url>");
  const events = typeof values.events === "string" ? values.events.split(",").map((uri) => uri.trim()) : undefined;
  for (const uri of events ?? []) {
    if (!(SECURITY_EVENT_URIS as readonly string[]).includes(uri))
      throw usageError(
        `--events: ${JSON.stringify(uri)} is not an RFC 9967 event URI scimkit sends; they are:\n  ${SECURITY_EVENT_URIS.join("\n  ")}`,
      );
  }
  const form = values.form;
  if (form !== undefined && form !== "full" && form !== "notice")
    throw usageError(`--form ${JSON.stringify(form)}: expected full or notice`);
  let authorization: string | undefined;
  const variable = values["authorization-env"];
  if (typeof variable === "string") {
    authorization = env[variable];
    if (authorization === undefined || authorization === "")
      throw usageError(`--authorization-env ${variable}: the environment variable ${variable} is not set (or empty)`);
  }
  const label = typeof values.label === "string" ? values.label.trim() : undefined;
  const audience = values.audience;
  const input: EventReceiverInput = {
    url,
    ...(values.poll === true ? { delivery: "poll" as const } : {}),
    ...(events === undefined ? {} : { events: events as SecurityEventUri[] }),
    ...(form === undefined ? {} : { form }),
    ...(typeof audience === "string" ? { audience } : {}),
    ...(authorization === undefined ? {} : { authorization }),
    ...(label === undefined || label === "" ? {} : { label }),
  };
  const [first] = eventReceiverInputErrors(input);
  if (first !== undefined) throw usageError(`${OPTION_OF[first.field]}: ${first.message}`);
  return input;
}

/** A receiver on one line: the id, the address, how, and where delivery stands, in plain words. */
function receiverLine(receiver: RenderedEventReceiver): string {
  const parts = [
    receiver.id,
    receiver.url,
    receiver.delivery,
    receiver.form,
    `events=${receiver.events.length === 0 ? "all" : receiver.events.join(",")}`,
    ...(receiver.label === undefined ? [] : [`label=${JSON.stringify(receiver.label)}`]),
    ...(receiver.pollUrl === undefined ? [] : [`pollUrl=${receiver.pollUrl}`]),
    `delivered=${receiver.delivered}`,
    `rejected=${receiver.rejected}`,
    ...(receiver.lastDeliveredAt === undefined ? [] : [`lastDelivered=${receiver.lastDeliveredAt}`]),
    ...(receiver.attempts === 0 ? [] : [`failing: ${receiver.attempts} attempt(s)`]),
    ...(receiver.nextAttemptAt === undefined ? [] : [`next=${receiver.nextAttemptAt}`]),
  ];
  const failed = receiver.lastError;
  if (failed !== undefined) {
    const status = failed.status === undefined ? "" : `HTTP ${failed.status} `;
    parts.push(`lastError=${failed.at} ${status}${failed.error}${failed.description === undefined ? "" : `: ${failed.description}`}`);
  }
  return parts.join("  ");
}

export const receiversCommand: HostCommand = {
  name: "receivers",
  summary: "list|add|remove|rotate-key --org <id>: an organization's RFC 9967 security event receivers and signing key",
  takesArguments: true,
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseCommandArgs(args, OPTIONS);
    if (values.help) {
      console.log(USAGE);
      return;
    }
    const [subcommand, ...rest] = positionals;
    if (subcommand === undefined) throw noSubcommand();
    const shape = ARGUMENTS[subcommand];
    if (shape === undefined) throw unknownSubcommand(subcommand);
    if (rest.length !== shape.length)
      throw usageError(`receivers ${subcommand} takes ${shape.join(" ") || "no argument"} besides its options; got ${rest.length}`);
    if (subcommand !== "add") {
      for (const option of ADD_OPTIONS) if (values[option] !== undefined) throw usageError(`receivers ${subcommand} takes no --${option}`);
    }
    const orgId = values.org;
    if (orgId === undefined || orgId === "") throw usageError(`receivers ${subcommand} needs --org <id>`);
    const [receiverId = ""] = rest;
    const json = values.json === true;
    // Checked before the store is opened: a wrong command line changes nothing.
    const input = subcommand === "add" ? inputOf(values, process.env) : undefined;

    await withCommandStore(async ({ store, analytics, audit }, settings) => {
      // The command never starts the loop: it only reads and changes the receivers the hosts deliver to.
      const events = hostEventDelivery(store, {
        publicUrl: settings.publicUrl ?? "",
        receiverAllowHosts: settings.events.receiverAllowHosts,
        ...hostEventBounds(settings.events),
      });
      const render = (receiver: Parameters<typeof renderEventReceiver>[0]) =>
        renderEventReceiver(receiver, events.pollUrl(receiver.orgId, receiver.id));
      switch (subcommand) {
        case "list": {
          await requireOrganization(analytics, orgId);
          const data = (await events.delivery.receivers(orgId)).map(render);
          if (json) print({ data });
          else if (data.length === 0) console.log(`${orgId} has no event receivers`);
          else for (const receiver of data) console.log(receiverLine(receiver));
          return;
        }
        case "add": {
          if (input === undefined) return;
          const added = await auditedCommandWrite(
            audit,
            {
              operation: "cli.addOrganizationEventReceiver",
              orgId,
              resourceType: "EventReceiver",
              resourceId: (result) => result.id,
              target: input.url,
              status: 201,
            },
            async () => {
              await requireOrganization(analytics, orgId);
              try {
                return await events.delivery.addReceiver(orgId, input, values["from-beginning"] === true ? "beginning" : "now");
              } catch (error) {
                if (error instanceof InvalidEventReceiverError)
                  throw usageError(`${OPTION_OF[fieldOfInvalidReceiver(error)]}: ${error.message}`);
                throw error;
              }
            },
          );
          const receiver = render(added);
          if (json) print({ receiver });
          else {
            console.log(`Receiver ${receiver.id} added for ${orgId}: ${receiverLine(receiver)}`);
            if (receiver.pollUrl !== undefined) console.log(`It polls at ${receiver.pollUrl}, with the Authorization value given.`);
          }
          return;
        }
        case "remove": {
          await auditedCommandWrite(
            audit,
            { operation: "cli.removeOrganizationEventReceiver", orgId, resourceType: "EventReceiver", resourceId: receiverId, status: 204 },
            async () => {
              await requireOrganization(analytics, orgId);
              if (!(await events.delivery.removeReceiver(orgId, receiverId)))
                throw failure(`${orgId} has no event receiver ${JSON.stringify(receiverId)}`);
            },
          );
          if (json) print({ removed: { organization: orgId, id: receiverId } });
          else console.log(`Receiver ${receiverId} of ${orgId} removed: it gets nothing more`);
          return;
        }
        case "rotate-key": {
          const key = await auditedCommandWrite(
            audit,
            {
              operation: "cli.rotateOrganizationEventSigningKey",
              orgId,
              resourceType: "EventSigningKey",
              resourceId: (result) => result.kid,
              status: 200,
            },
            async () => {
              await requireOrganization(analytics, orgId);
              return events.keys.rotate(orgId);
            },
          );
          // Hosts re-read the key within a minute (EventSigningKeysOptions.refreshMs); until then they
          // may sign with the old one, which the JWKS still serves.
          if (json) print({ signingKey: { organization: orgId, kid: key.kid } });
          else
            console.log(
              `New signing key ${key.kid} for ${orgId}: hosts sign with it within a minute; the old public key stays in the JWKS`,
            );
          return;
        }
      }
    });
  },
};
