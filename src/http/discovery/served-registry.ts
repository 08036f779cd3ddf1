/**
 * The registry as this router serves it: without the resource types that have members when the
 * store keeps none (`StoreCapabilities.groups: false`, a table store over an application without
 * groups), so `/Groups` is no endpoint and discovery does not advertise what every create of
 * would refuse (RFC 7644 §4: `/ResourceTypes` lists the types the service supports).
 */
import type { SchemaRegistry } from "../../scim/schema/schema-registry.js";
import type { StoreCapabilities } from "../../store/resource-store.js";

export function servedRegistry(registry: SchemaRegistry, capabilities: StoreCapabilities | undefined): SchemaRegistry {
  if (capabilities?.groups !== false) return registry;
  const resourceTypes = registry.resourceTypes.filter((type) => type.hasMembers !== true);
  const served = new Set(resourceTypes.map((type) => type.id.toLowerCase()));
  const schemaIds = new Set(
    resourceTypes.flatMap((type) => [type.schema, ...(type.schemaExtensions ?? []).map((extension) => extension.schema)]),
  );
  return {
    schemas: registry.schemas.filter((schema) => schemaIds.has(schema.id)),
    resourceTypes,
    schema: (urn) => {
      const schema = registry.schema(urn);
      return schema && schemaIds.has(schema.id) ? schema : undefined;
    },
    resourceType: (id) => (served.has(id.toLowerCase()) ? registry.resourceType(id) : undefined),
  };
}
