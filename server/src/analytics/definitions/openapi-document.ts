/**
 * The OpenAPI 3.1 description of the analytics interface, generated from the operation
 * definitions and component schemas the router validates with — never written by hand.
 */
import { analyticsOperations } from "./analytics-operations.js";
import { analyticsSchemas, ref } from "./analytics-schemas.js";
import type { OperationDefinition, ParameterDefinition } from "./operation-definition.js";
import { problemStatuses } from "./problem-statuses.js";
import { PROBLEM_TYPE } from "./schema-validators.js";

type Json = Record<string, unknown>;

const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Organizations: "The tenants of the provisioning service, each with its SCIM base address and tokens.",
  "Admin users": "The people who look after organizations through this interface, and their invitations.",
  Users: "The learners, as provisioned through SCIM.",
  "Training campaigns": "Campaigns, their figures, each learner's progress, comments and bulk reports.",
  "Attack simulations": "Phishing simulations, their figures, what each recipient did, comments and bulk reports.",
  Operations: "Long-running requests (bulk reports): poll, then download.",
  Documentation: "This description.",
  "Provisioning log": "Each SCIM request an organization received and what was answered, secrets removed.",
  Regions: "Where organizations' data is hosted (spec §2.1): the regions, and requests that reached the wrong one.",
  "Event receivers":
    "The services told of an organization's changes as signed Security Event Tokens (RFC 9967), pushed or polled, where delivery to each stands, and the key that signs the SETs.",
};

const DESCRIPTION = [
  "The analytics interface of a scimkit provisioning service (spec §4.6): organizations, admin users, learners, training campaigns, attack simulations and asynchronous reports.",
  "",
  "Authenticate with `Authorization: Bearer <key>`: the operator key sees every organization; an admin user's key (from accepting an invitation) sees its own organizations, and a `viewer`'s key may only read. SCIM tokens do not work here.",
  "",
  "Lists take `limit` (1–1000, default 50) and `cursor`, and answer `{ data, nextCursor }`. Errors are `application/problem+json` (RFC 9457) with a stable `type`. Data of organizations the caller may not see is answered 404, exactly like data that does not exist. Unknown query parameters and body fields are refused with 400.",
].join("\n");

function parameter(name: string, where: "path" | "query", definition: ParameterDefinition): Json {
  return {
    name,
    in: where,
    required: where === "path" || definition.required === true,
    description: definition.description,
    schema: definition.schema,
  };
}

function problemResponse(description: string, status: number): Json {
  return {
    description,
    content: { [PROBLEM_TYPE]: { schema: ref("Problem") } },
    ...(status === 401 ? { headers: { "WWW-Authenticate": { description: "`Bearer` (RFC 6750 §3).", schema: { type: "string" } } } } : {}),
    ...(status === 429
      ? {
          headers: {
            "Retry-After": {
              description: "Whole seconds until this key may send again (RFC 9110 §10.2.3).",
              schema: { type: "integer", minimum: 1 },
            },
          },
        }
      : {}),
  };
}

function operationObject(operation: OperationDefinition): Json {
  const parameters = [
    ...Object.entries(operation.pathParameters ?? {}).map(([name, definition]) => parameter(name, "path", definition)),
    ...Object.entries(operation.query ?? {}).map(([name, definition]) => parameter(name, "query", definition)),
  ];
  const responses: Record<string, Json> = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.headers ? { headers: response.headers } : {}),
      ...(response.content
        ? { content: Object.fromEntries(Object.entries(response.content).map(([type, schema]) => [type, { schema }])) }
        : {}),
    };
  }
  for (const [status, description] of Object.entries(problemStatuses(operation)))
    responses[status] = problemResponse(description, Number(status));
  responses["default"] = problemResponse(
    "An unexpected failure (500, `internal`), reported to the operator, or the database unreachable for now (503, `unavailable`, with `Retry-After`); retry later.",
    500,
  );
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: operation.description,
    ...(operation.access === "public" ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            description: operation.body.description,
            content: { "application/json": { schema: operation.body.schema } },
          },
        }
      : {}),
    responses,
  };
}

/**
 * The document. `serverUrl` is where the interface is mounted (the router passes the URL it was
 * reached at); without it the document names the host server's `/analytics/v1`.
 */
export function openApiDocument(serverUrl?: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const operation of analyticsOperations as readonly OperationDefinition[]) {
    const item: Record<string, Json> = paths[operation.path] ?? {};
    item[operation.method] = operationObject(operation);
    paths[operation.path] = item;
  }
  const tags = [...new Set(analyticsOperations.map((operation) => operation.tag))].map((name) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? name,
  }));
  return {
    openapi: "3.1.0",
    info: { title: "scimkit analytics", version: "1.0.0", description: DESCRIPTION, license: { name: "MIT", identifier: "MIT" } },
    servers: [{ url: serverUrl ?? "/analytics/v1" }],
    security: [{ apiKey: [] }],
    tags,
    paths,
    components: {
      schemas: analyticsSchemas,
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          description: "An analytics API key (`scimkit_ak_…`): the operator's, or an admin user's from accepting its invitation.",
        },
      },
    },
  };
}
