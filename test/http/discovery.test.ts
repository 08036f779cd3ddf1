/**
 * Discovery (RFC 7644 §4, RFC 7643 §5–§7, RFC 9865 §4): `/ServiceProviderConfig`, `/Schemas` and
 * `/ResourceTypes` are generated from the registry, the profile, the options and the store's
 * capabilities, and advertise exactly what the service does.
 */
import request from "supertest";
import { describe, expect, it } from "vitest";
import { attribute, type SchemaDefinition } from "../../src/scim/schema/attribute-definition.js";
import { specProfile } from "../../src/scim/schema/resource-profile.js";
import { createSchemaRegistry } from "../../src/scim/schema/schema-registry.js";
import { memoryStore } from "../../src/store/memory/memory-store.js";
import type { ResourceStore } from "../../src/store/resource-store.js";
import {
  ENTERPRISE_SCHEMA,
  GROUP_SCHEMA,
  LIST_SCHEMA,
  USER_SCHEMA,
  createTestApp,
  expectScimError,
  userBody,
  type TestApp,
} from "./harness.js";

const SPC_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";
const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const CUSTOM_SCHEMA = "urn:example:params:scim:schemas:extension:acme:2.0:User";

interface SchemaAttribute {
  readonly name: string;
  readonly type: string;
  readonly multiValued: boolean;
  readonly description?: string;
  readonly required: boolean;
  readonly caseExact: boolean;
  readonly mutability: string;
  readonly returned: string;
  readonly uniqueness: string;
  readonly subAttributes?: readonly SchemaAttribute[];
}

interface SchemaDocument {
  readonly schemas: readonly string[];
  readonly id: string;
  readonly name: string;
  readonly attributes: readonly SchemaAttribute[];
  readonly meta: { readonly resourceType: string; readonly location: string };
}

interface ResourceTypeDocument {
  readonly schemas: readonly string[];
  readonly id: string;
  readonly name: string;
  readonly endpoint: string;
  readonly schema: string;
  readonly schemaExtensions: readonly { readonly schema: string; readonly required: boolean }[];
  readonly meta: { readonly resourceType: string; readonly location: string };
}

interface ListOf<T> {
  readonly schemas: readonly string[];
  readonly totalResults: number;
  readonly Resources: readonly T[];
}

async function serviceProviderConfig(t: TestApp): Promise<Record<string, unknown>> {
  const response = await request(t.app).get(`${t.base()}/ServiceProviderConfig`).expect(200);
  return response.body as Record<string, unknown>;
}

function findAttribute(document: SchemaDocument, name: string): SchemaAttribute {
  const found = document.attributes.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`${document.id} has no attribute ${name}`);
  return found;
}

const customExtension: SchemaDefinition = {
  id: CUSTOM_SCHEMA,
  name: "AcmeUser",
  description: "Acme's own user attributes",
  attributes: [
    attribute("badgeNumber", { description: "The number on the user's badge.", uniqueness: "server" }),
    attribute("clearance", { type: "integer", description: "Security clearance level." }),
  ],
};

function customRegistry() {
  return createSchemaRegistry({
    schemas: [customExtension],
    extensions: [{ resourceType: "User", schema: CUSTOM_SCHEMA, required: false }],
  });
}

describe("/ServiceProviderConfig", () => {
  it("advertises every block of RFC 7643 §5 and RFC 9865 §4 with the defaults", async () => {
    const t = await createTestApp();
    const config = await serviceProviderConfig(t);
    expect(config["schemas"]).toEqual([SPC_SCHEMA]);
    expect(config["patch"]).toEqual({ supported: true });
    expect(config["bulk"]).toEqual({ supported: true, maxOperations: 1000, maxPayloadSize: 1_048_576 });
    expect(config["filter"]).toEqual({ supported: true, maxResults: 1000 });
    expect(config["changePassword"]).toEqual({ supported: false });
    expect(config["sort"]).toEqual({ supported: true });
    expect(config["etag"]).toEqual({ supported: true });
    expect(config["pagination"]).toMatchObject({ cursor: true, index: true, defaultPageSize: 100, maxPageSize: 1000 });
    const schemes = config["authenticationSchemes"] as { type: string; name: string; description: string }[];
    expect(Array.isArray(schemes)).toBe(true);
    expect(schemes.length).toBeGreaterThan(0);
    expect(schemes[0]).toMatchObject({ type: "oauthbearertoken" });
    expect(typeof schemes[0]?.name).toBe("string");
    expect(typeof schemes[0]?.description).toBe("string");
    expect((config["meta"] as { location: string }).location).toMatch(
      /^http:\/\/[^/]+\/scim\/Organizations\/acme\/v2\/ServiceProviderConfig$/,
    );
  });

  it("advertises the configured bulk and paging limits", async () => {
    const t = await createTestApp({
      bulk: { maxOperations: 7, maxPayloadSize: 4096 },
      paging: { defaultPageSize: 5, maxPageSize: 20 },
      documentationUri: "https://docs.example.com/scim",
    });
    const config = await serviceProviderConfig(t);
    expect(config["bulk"]).toEqual({ supported: true, maxOperations: 7, maxPayloadSize: 4096 });
    expect(config["filter"]).toEqual({ supported: true, maxResults: 20 });
    expect(config["pagination"]).toMatchObject({ cursor: true, index: true, defaultPageSize: 5, maxPageSize: 20 });
    expect(config["documentationUri"]).toBe("https://docs.example.com/scim");
  });

  it("enforces the advertised paging limits", async () => {
    const t = await createTestApp({ paging: { defaultPageSize: 2, maxPageSize: 3 } });
    for (const name of ["u1", "u2", "u3", "u4"]) await t.post("/Users", userBody(name)).expect(201);
    const byDefault = (await t.get("/Users").expect(200)).body as ListOf<unknown> & { itemsPerPage: number };
    expect(byDefault.totalResults).toBe(4);
    expect(byDefault.Resources).toHaveLength(2);
    const clamped = (await t.get("/Users?count=50").expect(200)).body as ListOf<unknown> & { itemsPerPage: number };
    expect(clamped.Resources).toHaveLength(3);
    expect(clamped.itemsPerPage).toBe(3);
  });

  it("enforces the advertised bulk maxOperations and maxPayloadSize with 413", async () => {
    const t = await createTestApp({ bulk: { maxOperations: 2, maxPayloadSize: 2048 } });
    const operation = (name: string) => ({ method: "POST", path: "/Users", bulkId: name, data: userBody(name) });
    const bulk = (operations: unknown[]) => ({ schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"], Operations: operations });
    expectScimError(await t.post("/Bulk", bulk([operation("a"), operation("b"), operation("c")])), 413);
    expectScimError(await t.post("/Bulk", bulk([{ ...operation("d"), data: userBody("d", { displayName: "x".repeat(3000) }) }])), 413);
    const list = (await t.get("/Users").expect(200)).body as ListOf<unknown>;
    expect(list.totalResults).toBe(0);
    await t.post("/Bulk", bulk([operation("e"), operation("f")])).expect(200);
    expect(((await t.get("/Users").expect(200)).body as ListOf<unknown>).totalResults).toBe(2);
  });

  it("advertises sort and cursor as unsupported when the store declares it cannot do them", async () => {
    const inner = memoryStore();
    const store: ResourceStore = {
      capabilities: { sort: false, cursor: false },
      create: (r) => inner.create(r),
      get: (r) => inner.get(r),
      list: (r) => inner.list(r),
      update: (r) => inner.update(r),
      delete: (r) => inner.delete(r),
    };
    const t = await createTestApp({ store });
    const config = await serviceProviderConfig(t);
    expect(config["sort"]).toEqual({ supported: false });
    expect((config["pagination"] as { cursor: boolean }).cursor).toBe(false);
    expect((config["pagination"] as { index: boolean }).index).toBe(true);
    // And the service refuses what it does not advertise.
    expectScimError(await t.get("/Users?cursor="), 400);
  });

  it("is the same document for every organization, with the organization's location", async () => {
    const t = await createTestApp();
    const acme = await serviceProviderConfig(t);
    const other = (
      await request(t.app)
        .get(`${t.base("globex")}/ServiceProviderConfig`)
        .expect(200)
    ).body as Record<string, unknown>;
    const { meta: acmeMeta, ...acmeRest } = acme;
    const { meta: otherMeta, ...otherRest } = other;
    expect(otherRest).toEqual(acmeRest);
    expect((otherMeta as { location: string }).location).toContain("/Organizations/globex/");
    expect((acmeMeta as { location: string }).location).toContain("/Organizations/acme/");
  });
});

describe("/Schemas", () => {
  it("lists the User, enterprise User and Group schemas as a ListResponse", async () => {
    const t = await createTestApp();
    const body = (await t.get("/Schemas").expect(200)).body as ListOf<SchemaDocument>;
    expect(body.schemas).toEqual([LIST_SCHEMA]);
    expect(body.Resources.map((schema) => schema.id).sort()).toEqual([ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA].sort());
    expect(body.totalResults).toBe(3);
    for (const schema of body.Resources) {
      expect(schema.schemas).toEqual([SCHEMA_SCHEMA]);
      expect(schema.meta.resourceType).toBe("Schema");
      expect(schema.meta.location).toMatch(new RegExp(`^http://[^/]+/scim/Organizations/acme/v2/Schemas/${schema.id}$`));
      expect(schema.attributes.length).toBeGreaterThan(0);
    }
  });

  it("returns one schema by URN, case-insensitively", async () => {
    const t = await createTestApp();
    const user = (await t.get(`/Schemas/${USER_SCHEMA}`).expect(200)).body as SchemaDocument;
    expect(user.id).toBe(USER_SCHEMA);
    expect(user.schemas).toEqual([SCHEMA_SCHEMA]);
    expect(user.attributes.map((a) => a.name)).toEqual(expect.arrayContaining(["userName", "name", "emails", "active", "groups"]));
    const enterprise = (await t.get(`/Schemas/${ENTERPRISE_SCHEMA}`).expect(200)).body as SchemaDocument;
    expect(enterprise.attributes.map((a) => a.name)).toEqual(expect.arrayContaining(["employeeNumber", "department", "manager"]));
    const group = (await t.get(`/Schemas/${GROUP_SCHEMA.toUpperCase()}`).expect(200)).body as SchemaDocument;
    expect(group.id).toBe(GROUP_SCHEMA);
    expect(group.attributes.map((a) => a.name)).toEqual(expect.arrayContaining(["displayName", "members"]));
  });

  it("answers an unknown schema with a 404 SCIM error", async () => {
    const t = await createTestApp();
    expectScimError(await t.get("/Schemas/urn:ietf:params:scim:schemas:core:2.0:Nope"), 404);
    expectScimError(await t.get("/Schemas/nothing"), 404);
  });

  it("gives every attribute and sub-attribute the RFC 7643 §7 characteristics", async () => {
    const t = await createTestApp();
    const body = (await t.get("/Schemas").expect(200)).body as ListOf<SchemaDocument>;
    let checked = 0;
    const check = (where: string, attr: SchemaAttribute): void => {
      checked += 1;
      expect(typeof attr.name, where).toBe("string");
      expect(["string", "boolean", "decimal", "integer", "dateTime", "binary", "reference", "complex"], `${where}.type`).toContain(
        attr.type,
      );
      expect(typeof attr.multiValued, `${where}.multiValued`).toBe("boolean");
      expect(typeof attr.required, `${where}.required`).toBe("boolean");
      expect(typeof attr.caseExact, `${where}.caseExact`).toBe("boolean");
      expect(typeof attr.description, `${where}.description`).toBe("string");
      expect(["readOnly", "readWrite", "immutable", "writeOnly"], `${where}.mutability`).toContain(attr.mutability);
      expect(["always", "never", "default", "request"], `${where}.returned`).toContain(attr.returned);
      expect(["none", "server", "global"], `${where}.uniqueness`).toContain(attr.uniqueness);
      if (attr.type === "complex") {
        expect(Array.isArray(attr.subAttributes), `${where}.subAttributes`).toBe(true);
        for (const sub of attr.subAttributes ?? []) check(`${where}.${sub.name}`, sub);
      } else {
        expect(attr.subAttributes, `${where} is not complex`).toBeUndefined();
      }
    };
    for (const schema of body.Resources) for (const attr of schema.attributes) check(`${schema.id}:${attr.name}`, attr);
    expect(checked).toBeGreaterThan(40);
  });

  it("describes userName, password and id-like attributes as RFC 7643 §4.1 does", async () => {
    const t = await createTestApp();
    const user = (await t.get(`/Schemas/${USER_SCHEMA}`).expect(200)).body as SchemaDocument;
    expect(findAttribute(user, "userName")).toMatchObject({ type: "string", required: true, uniqueness: "server", caseExact: false });
    expect(findAttribute(user, "password")).toMatchObject({ mutability: "writeOnly", returned: "never" });
    expect(findAttribute(user, "groups")).toMatchObject({ mutability: "readOnly", multiValued: true });
    expect(findAttribute(user, "emails")).toMatchObject({ type: "complex", multiValued: true });
  });

  it("with specProfile advertises only the synchronized attributes and marks the required names", async () => {
    const t = await createTestApp({ profile: specProfile });
    const user = (await t.get(`/Schemas/${USER_SCHEMA}`).expect(200)).body as SchemaDocument;
    expect(user.attributes.map((a) => a.name).sort()).toEqual(
      ["userName", "name", "nickName", "preferredLanguage", "active", "emails", "addresses", "roles"].sort(),
    );
    const name = findAttribute(user, "name");
    expect(name.subAttributes?.map((s) => s.name).sort()).toEqual(["familyName", "givenName"]);
    expect(name.subAttributes?.find((s) => s.name === "givenName")?.required).toBe(true);
    expect(name.subAttributes?.find((s) => s.name === "familyName")?.required).toBe(true);
    expect(findAttribute(user, "userName").required).toBe(true);
    expect(
      findAttribute(user, "emails")
        .subAttributes?.map((s) => s.name)
        .sort(),
    ).toEqual(["type", "value"]);
    expect(findAttribute(user, "emails").required).toBe(true);
    for (const dropped of ["displayName", "phoneNumbers", "password", "photos", "x509Certificates", "title"]) {
      expect(
        user.attributes.some((a) => a.name === dropped),
        dropped,
      ).toBe(false);
    }
    const enterprise = (await t.get(`/Schemas/${ENTERPRISE_SCHEMA}`).expect(200)).body as SchemaDocument;
    expect(enterprise.attributes.map((a) => a.name).sort()).toEqual(["department", "division", "employeeNumber"]);
    const group = (await t.get(`/Schemas/${GROUP_SCHEMA}`).expect(200)).body as SchemaDocument;
    expect(findAttribute(group, "displayName").required).toBe(true);
  });

  it("with specProfile marks name itself required, since the profile requires its sub-attributes", async () => {
    const t = await createTestApp({ profile: specProfile });
    const user = (await t.get(`/Schemas/${USER_SCHEMA}`).expect(200)).body as SchemaDocument;
    // A user without `name` is rejected under this profile, so a client reading the schema must
    // learn that `name` is required; otherwise the document advertises `name` as optional.
    await t.post("/Users", { ...userBody("noname"), name: undefined }).expect(400);
    expect(findAttribute(user, "name").required).toBe(true);
  });

  it("without a profile advertises the whole RFC 7643 User schema, name sub-attributes optional", async () => {
    const t = await createTestApp();
    const user = (await t.get(`/Schemas/${USER_SCHEMA}`).expect(200)).body as SchemaDocument;
    expect(user.attributes.map((a) => a.name)).toEqual(
      expect.arrayContaining(["displayName", "phoneNumbers", "title", "x509Certificates"]),
    );
    expect(findAttribute(user, "name").subAttributes?.find((s) => s.name === "givenName")?.required).toBe(false);
  });

  it("advertises every attribute a response carries, under both profiles", async () => {
    for (const profile of [undefined, specProfile]) {
      const t = await createTestApp(profile ? { profile } : {});
      const user = (
        await t
          .post(
            "/Users",
            userBody("ann", {
              schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
              nickName: "A",
              roles: [{ value: "admin", primary: true }],
              [ENTERPRISE_SCHEMA]: { department: "R&D", employeeNumber: "42" },
            }),
          )
          .expect(201)
      ).body as Record<string, unknown>;
      const group = (await t.post("/Groups", { schemas: [GROUP_SCHEMA], displayName: "G", members: [{ value: user["id"] }] }).expect(201))
        .body as Record<string, unknown>;
      const groupRead = (await t.get(`/Groups/${String(group["id"])}`).expect(200)).body as Record<string, unknown>;
      const schemas = ((await t.get("/Schemas").expect(200)).body as ListOf<SchemaDocument>).Resources;
      const byId = new Map(schemas.map((s) => [s.id, s]));
      const common = new Set(["schemas", "id", "externalId", "meta"]);
      const missing: string[] = [];
      const walk = (schema: SchemaDocument, resource: Record<string, unknown>): void => {
        for (const [key, value] of Object.entries(resource)) {
          if (common.has(key) || byId.has(key)) continue;
          const attr = schema.attributes.find((a) => a.name.toLowerCase() === key.toLowerCase());
          if (!attr) {
            missing.push(`${schema.name}:${key}`);
            continue;
          }
          const elements = Array.isArray(value) ? value : [value];
          for (const element of elements) {
            if (typeof element !== "object" || element === null) continue;
            for (const sub of Object.keys(element)) {
              if (!attr.subAttributes?.some((s) => s.name.toLowerCase() === sub.toLowerCase()))
                missing.push(`${schema.name}:${key}.${sub}`);
            }
          }
        }
      };
      const userSchema = byId.get(USER_SCHEMA);
      const groupSchema = byId.get(GROUP_SCHEMA);
      const enterpriseSchema = byId.get(ENTERPRISE_SCHEMA);
      if (!userSchema || !groupSchema || !enterpriseSchema) throw new Error("schemas missing");
      walk(userSchema, user);
      walk(enterpriseSchema, (user[ENTERPRISE_SCHEMA] ?? {}) as Record<string, unknown>);
      walk(groupSchema, groupRead);
      expect(missing, profile?.name ?? "rfc7643").toEqual([]);
    }
  });
});

describe("/ResourceTypes", () => {
  it("lists User and Group with their endpoints, schemas and extensions", async () => {
    const t = await createTestApp();
    const body = (await t.get("/ResourceTypes").expect(200)).body as ListOf<ResourceTypeDocument>;
    expect(body.schemas).toEqual([LIST_SCHEMA]);
    expect(body.totalResults).toBe(2);
    const user = body.Resources.find((type) => type.id === "User");
    const group = body.Resources.find((type) => type.id === "Group");
    expect(user).toMatchObject({
      schemas: [RESOURCE_TYPE_SCHEMA],
      name: "User",
      endpoint: "/Users",
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: "ResourceType" },
    });
    expect(user?.meta.location).toMatch(/^http:\/\/[^/]+\/scim\/Organizations\/acme\/v2\/ResourceTypes\/User$/);
    expect(group).toMatchObject({ schemas: [RESOURCE_TYPE_SCHEMA], name: "Group", endpoint: "/Groups", schema: GROUP_SCHEMA });
    expect(group?.schemaExtensions ?? []).toEqual([]);
  });

  it("returns one resource type by id, case-insensitively", async () => {
    const t = await createTestApp();
    for (const id of ["User", "user", "USER"]) {
      const user = (await t.get(`/ResourceTypes/${id}`).expect(200)).body as ResourceTypeDocument;
      expect(user.id).toBe("User");
      expect(user.schemaExtensions).toEqual([{ schema: ENTERPRISE_SCHEMA, required: false }]);
    }
    const group = (await t.get("/ResourceTypes/group").expect(200)).body as ResourceTypeDocument;
    expect(group.id).toBe("Group");
  });

  it("answers an unknown resource type with a 404 SCIM error", async () => {
    const t = await createTestApp();
    expectScimError(await t.get("/ResourceTypes/Device"), 404);
  });
});

describe("a registry with a custom extension", () => {
  it("shows the extension in /Schemas, /Schemas/{urn} and the User resource type", async () => {
    const t = await createTestApp({ registry: customRegistry() });
    const schemas = (await t.get("/Schemas").expect(200)).body as ListOf<SchemaDocument>;
    expect(schemas.Resources.map((s) => s.id)).toContain(CUSTOM_SCHEMA);
    expect(schemas.totalResults).toBe(4);
    const custom = (await t.get(`/Schemas/${CUSTOM_SCHEMA}`).expect(200)).body as SchemaDocument;
    expect(custom.name).toBe("AcmeUser");
    expect(findAttribute(custom, "badgeNumber")).toMatchObject({
      type: "string",
      uniqueness: "server",
      required: false,
      mutability: "readWrite",
    });
    expect(findAttribute(custom, "clearance")).toMatchObject({ type: "integer" });
    const user = (await t.get("/ResourceTypes/User").expect(200)).body as ResourceTypeDocument;
    expect(user.schemaExtensions).toEqual([
      { schema: ENTERPRISE_SCHEMA, required: false },
      { schema: CUSTOM_SCHEMA, required: false },
    ]);
    const group = (await t.get("/ResourceTypes/Group").expect(200)).body as ResourceTypeDocument;
    expect(group.schemaExtensions ?? []).toEqual([]);
  });

  it("accepts and returns the extension's attributes on users", async () => {
    const t = await createTestApp({ registry: customRegistry() });
    const created = await t
      .post("/Users", userBody("ann", { schemas: [USER_SCHEMA, CUSTOM_SCHEMA], [CUSTOM_SCHEMA]: { badgeNumber: "B-7", clearance: 3 } }))
      .expect(201);
    const body = created.body as Record<string, unknown>;
    expect(body["schemas"]).toContain(CUSTOM_SCHEMA);
    expect(body[CUSTOM_SCHEMA]).toEqual({ badgeNumber: "B-7", clearance: 3 });
  });

  it("is not shown by a router built with the default registry", async () => {
    const t = await createTestApp();
    expectScimError(await t.get(`/Schemas/${CUSTOM_SCHEMA}`), 404);
    const user = (await t.get("/ResourceTypes/User").expect(200)).body as ResourceTypeDocument;
    expect(user.schemaExtensions.map((e) => e.schema)).not.toContain(CUSTOM_SCHEMA);
  });
});
