import { describe, expect, it } from "vitest";
import type { AttributeDefinition, SchemaDefinition } from "./attribute-definition.js";
import { commonAttributes } from "./common-attributes.js";
import { coreGroupSchema } from "./core-group-schema.js";
import { groupResourceType, userResourceType } from "./core-resource-types.js";
import { coreUserSchema } from "./core-user-schema.js";
import { enterpriseUserSchema } from "./enterprise-user-schema.js";

const schemas: readonly SchemaDefinition[] = [coreUserSchema, coreGroupSchema, enterpriseUserSchema];

/** Every attribute list: each schema's, the common attributes, and each complex attribute's sub-attributes. */
function attributeLists(): { owner: string; list: readonly AttributeDefinition[] }[] {
  const lists: { owner: string; list: readonly AttributeDefinition[] }[] = [];
  const visit = (owner: string, list: readonly AttributeDefinition[]): void => {
    lists.push({ owner, list });
    for (const attribute of list) {
      if (attribute.subAttributes) visit(`${owner}:${attribute.name}`, attribute.subAttributes);
    }
  };
  for (const schema of schemas) visit(schema.id, schema.attributes);
  visit("common", commonAttributes);
  return lists;
}

const allAttributes = (): AttributeDefinition[] => attributeLists().flatMap(({ list }) => [...list]);

function find(list: readonly AttributeDefinition[] | undefined, name: string): AttributeDefinition {
  const found = list?.find((attribute) => attribute.name === name);
  if (!found) throw new Error(`no attribute ${name}`);
  return found;
}

const names = (list: readonly AttributeDefinition[] | undefined): string[] => (list ?? []).map((attribute) => attribute.name);
const user = (name: string): AttributeDefinition => find(coreUserSchema.attributes, name);
const common = (name: string): AttributeDefinition => find(commonAttributes, name);

describe("core User schema (RFC 7643 §4.1, §8.7.1)", () => {
  it("has the URN and every attribute of §8.7.1, in order", () => {
    expect(coreUserSchema.id).toBe("urn:ietf:params:scim:schemas:core:2.0:User");
    expect(names(coreUserSchema.attributes)).toEqual([
      "userName",
      "name",
      "displayName",
      "nickName",
      "profileUrl",
      "title",
      "userType",
      "preferredLanguage",
      "locale",
      "timezone",
      "active",
      "password",
      "emails",
      "phoneNumbers",
      "ims",
      "photos",
      "addresses",
      "groups",
      "entitlements",
      "roles",
      "x509Certificates",
    ]);
  });

  it("makes userName a required, server-unique, case-insensitive string", () => {
    expect(user("userName")).toMatchObject({
      type: "string",
      multiValued: false,
      required: true,
      caseExact: false,
      mutability: "readWrite",
      returned: "default",
      uniqueness: "server",
    });
  });

  it("never returns password and only accepts it", () => {
    expect(user("password")).toMatchObject({ type: "string", mutability: "writeOnly", returned: "never", required: false });
  });

  it("makes groups read-only down to every sub-attribute", () => {
    const groups = user("groups");
    expect(groups).toMatchObject({ type: "complex", multiValued: true, mutability: "readOnly" });
    expect(names(groups.subAttributes)).toEqual(["value", "$ref", "display", "type"]);
    expect(groups.subAttributes?.every((sub) => sub.mutability === "readOnly")).toBe(true);
    expect(find(groups.subAttributes, "$ref").referenceTypes).toEqual(["User", "Group"]);
    expect(find(groups.subAttributes, "type").canonicalValues).toEqual(["direct", "indirect"]);
  });

  it("leaves every other attribute readWrite and returned by default", () => {
    const others = coreUserSchema.attributes.filter((attribute) => !["password", "groups"].includes(attribute.name));
    expect(others.filter((attribute) => attribute.mutability !== "readWrite" || attribute.returned !== "default")).toEqual([]);
    expect(others.filter((attribute) => attribute.name !== "userName" && attribute.required)).toEqual([]);
  });

  it("gives emails value, display, type and primary", () => {
    const emails = user("emails");
    expect(emails).toMatchObject({ type: "complex", multiValued: true, required: false });
    expect(names(emails.subAttributes)).toEqual(["value", "display", "type", "primary"]);
    expect(find(emails.subAttributes, "value")).toMatchObject({ type: "string", caseExact: false });
    expect(find(emails.subAttributes, "type").canonicalValues).toEqual(["work", "home", "other"]);
    expect(find(emails.subAttributes, "primary")).toMatchObject({ type: "boolean", multiValued: false });
  });

  it("gives name its six string components", () => {
    const name = user("name");
    expect(name).toMatchObject({ type: "complex", multiValued: false });
    expect(names(name.subAttributes)).toEqual(["formatted", "familyName", "givenName", "middleName", "honorificPrefix", "honorificSuffix"]);
    expect(name.subAttributes?.every((sub) => sub.type === "string")).toBe(true);
  });

  it("defines the sub-attributes and canonical types of the other multi-valued attributes", () => {
    expect(names(user("phoneNumbers").subAttributes)).toEqual(["value", "display", "type", "primary"]);
    expect(find(user("phoneNumbers").subAttributes, "type").canonicalValues).toEqual(["work", "home", "mobile", "fax", "pager", "other"]);
    expect(find(user("ims").subAttributes, "type").canonicalValues).toEqual(["aim", "gtalk", "icq", "xmpp", "msn", "skype", "qq", "yahoo"]);
    expect(find(user("photos").subAttributes, "value")).toMatchObject({ type: "reference", referenceTypes: ["external"] });
    expect(find(user("photos").subAttributes, "type").canonicalValues).toEqual(["photo", "thumbnail"]);
    expect(names(user("addresses").subAttributes)).toEqual([
      "formatted",
      "streetAddress",
      "locality",
      "region",
      "postalCode",
      "country",
      "type",
      "primary",
    ]);
    for (const name of ["entitlements", "roles", "x509Certificates"]) {
      expect(names(user(name).subAttributes)).toEqual(["value", "display", "type", "primary"]);
    }
  });

  it("types the scalar attributes as §8.7.1 does", () => {
    expect(user("active").type).toBe("boolean");
    expect(user("profileUrl")).toMatchObject({ type: "reference", referenceTypes: ["external"] });
    expect(find(user("x509Certificates").subAttributes, "value")).toMatchObject({ type: "binary", caseExact: true });
  });
});

describe("core Group schema (RFC 7643 §4.2, §8.7.1)", () => {
  it("requires displayName", () => {
    expect(coreGroupSchema.id).toBe("urn:ietf:params:scim:schemas:core:2.0:Group");
    expect(names(coreGroupSchema.attributes)).toEqual(["displayName", "members"]);
    expect(find(coreGroupSchema.attributes, "displayName")).toMatchObject({ type: "string", required: true, uniqueness: "server" });
  });

  it("lets members be added and removed but not edited, with a read-only display", () => {
    const members = find(coreGroupSchema.attributes, "members");
    expect(members).toMatchObject({ type: "complex", multiValued: true, mutability: "readWrite", required: false });
    expect(names(members.subAttributes)).toEqual(["value", "$ref", "display", "type"]);
    expect(find(members.subAttributes, "value")).toMatchObject({ type: "string", mutability: "immutable" });
    expect(find(members.subAttributes, "$ref")).toMatchObject({
      type: "reference",
      referenceTypes: ["User", "Group"],
      mutability: "immutable",
    });
    expect(find(members.subAttributes, "type")).toMatchObject({ mutability: "immutable", canonicalValues: ["User", "Group"] });
    expect(find(members.subAttributes, "display").mutability).toBe("readOnly");
  });
});

describe("Enterprise User extension (RFC 7643 §4.3, §8.7.1)", () => {
  it("has the six attributes of §4.3", () => {
    expect(enterpriseUserSchema.id).toBe("urn:ietf:params:scim:schemas:extension:enterprise:2.0:User");
    expect(names(enterpriseUserSchema.attributes)).toEqual([
      "employeeNumber",
      "costCenter",
      "organization",
      "division",
      "department",
      "manager",
    ]);
    expect(enterpriseUserSchema.attributes.some((attribute) => attribute.required)).toBe(false);
  });

  it("models manager as a single complex reference to a User with a read-only displayName", () => {
    const manager = find(enterpriseUserSchema.attributes, "manager");
    expect(manager).toMatchObject({ type: "complex", multiValued: false, mutability: "readWrite" });
    expect(names(manager.subAttributes)).toEqual(["value", "$ref", "displayName"]);
    expect(find(manager.subAttributes, "value")).toMatchObject({ type: "string", required: false, mutability: "readWrite" });
    expect(find(manager.subAttributes, "$ref")).toMatchObject({ type: "reference", referenceTypes: ["User"] });
    expect(find(manager.subAttributes, "displayName").mutability).toBe("readOnly");
  });
});

describe("common attributes (RFC 7643 §3, §3.1)", () => {
  it("are schemas, id, externalId and meta, and collide with no schema attribute", () => {
    expect(names(commonAttributes)).toEqual(["schemas", "id", "externalId", "meta"]);
    const commonNames = new Set(names(commonAttributes).map((name) => name.toLowerCase()));
    for (const schema of schemas) {
      expect(schema.attributes.filter((attribute) => commonNames.has(attribute.name.toLowerCase()))).toEqual([]);
    }
  });

  it("always return id, which the server assigns, exactly and uniquely", () => {
    expect(common("id")).toMatchObject({
      type: "string",
      caseExact: true,
      mutability: "readOnly",
      returned: "always",
      uniqueness: "server",
    });
  });

  it("always return schemas, a required multi-valued URI list that clients send", () => {
    expect(common("schemas")).toMatchObject({
      type: "reference",
      referenceTypes: ["uri"],
      multiValued: true,
      required: true,
      caseExact: true,
      mutability: "readWrite",
      returned: "always",
    });
  });

  it("leave externalId to the client, compared exactly", () => {
    expect(common("externalId")).toMatchObject({ type: "string", caseExact: true, mutability: "readWrite", required: false });
  });

  it("make meta and all its sub-attributes read-only and returned by default", () => {
    const meta = common("meta");
    expect(meta).toMatchObject({ type: "complex", mutability: "readOnly", returned: "default" });
    expect(names(meta.subAttributes)).toEqual(["resourceType", "created", "lastModified", "location", "version"]);
    expect(meta.subAttributes?.every((sub) => sub.mutability === "readOnly" && sub.returned === "default")).toBe(true);
    expect(find(meta.subAttributes, "created").type).toBe("dateTime");
    expect(find(meta.subAttributes, "lastModified").type).toBe("dateTime");
    expect(find(meta.subAttributes, "location")).toMatchObject({ type: "reference", referenceTypes: ["uri"] });
    expect(find(meta.subAttributes, "resourceType").caseExact).toBe(true);
    expect(find(meta.subAttributes, "version").caseExact).toBe(true);
  });
});

describe("structural rules over every definition", () => {
  it("keeps attribute names unique within their parent, case-insensitively (RFC 7643 §2.1)", () => {
    for (const { owner, list } of attributeLists()) {
      const lower = names(list).map((name) => name.toLowerCase());
      expect(new Set(lower).size, owner).toBe(lower.length);
    }
  });

  it("gives sub-attributes to every complex attribute and to nothing else", () => {
    for (const attribute of allAttributes()) {
      if (attribute.type === "complex") expect(attribute.subAttributes?.length ?? 0, attribute.name).toBeGreaterThan(0);
      else expect(attribute.subAttributes, attribute.name).toBeUndefined();
    }
  });

  it("never nests a complex attribute inside another (RFC 7643 §2.3.8)", () => {
    const complex = allAttributes().filter((attribute) => attribute.type === "complex");
    expect(complex.length).toBeGreaterThan(0);
    for (const attribute of complex) {
      expect(
        attribute.subAttributes?.filter((sub) => sub.type === "complex"),
        attribute.name,
      ).toEqual([]);
    }
  });

  it("declares referenceTypes on references only, and every reference and binary case-exact (§2.3.6, §2.3.7)", () => {
    const references = allAttributes().filter((attribute) => attribute.type === "reference");
    expect(references.length).toBeGreaterThan(0);
    for (const attribute of allAttributes()) {
      if (attribute.type === "reference") expect(attribute.referenceTypes?.length ?? 0, attribute.name).toBeGreaterThan(0);
      else expect(attribute.referenceTypes, attribute.name).toBeUndefined();
      if (attribute.type === "reference" || attribute.type === "binary") expect(attribute.caseExact, attribute.name).toBe(true);
    }
  });
});

describe("core resource types (RFC 7643 §6, §8.6)", () => {
  it("serves User at /Users with the enterprise extension optional", () => {
    expect(userResourceType).toMatchObject({ id: "User", name: "User", endpoint: "/Users", schema: coreUserSchema.id });
    expect(userResourceType.schemaExtensions).toEqual([{ schema: enterpriseUserSchema.id, required: false }]);
  });

  it("serves Group at /Groups without extensions", () => {
    expect(groupResourceType).toMatchObject({ id: "Group", name: "Group", endpoint: "/Groups", schema: coreGroupSchema.id });
    expect(groupResourceType.schemaExtensions).toEqual([]);
  });
});
