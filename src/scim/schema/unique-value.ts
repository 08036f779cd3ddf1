/**
 * How the values of a unique attribute compare (architecture §3: uniqueness of `userName` and group
 * `displayName`): as Unicode text in Normalization Form C, case-folded unless the attribute is
 * caseExact (RFC 7643 §2.1). A client may send "Ångström" precomposed (U+00C5) or decomposed
 * ("A" + U+030A): the two are canonically equivalent (Unicode Standard Annex #15), one name to a
 * person and to an identity provider, so they must clash and find each other. The core makes
 * `UniqueKey`s, index lookups and `matchesFilter`'s equality on these attributes with this one
 * function; the stored attribute keeps what the client sent.
 */
import type { AttributeDefinition } from "./attribute-definition.js";

/**
 * Whether values of `attribute` must be held unique: a single-valued, client-writable string whose
 * schema says `uniqueness: "server"` or `"global"`. Stores use it to find index-backed filters.
 */
export function isUniqueAttribute(attribute: AttributeDefinition): boolean {
  return attribute.uniqueness !== "none" && attribute.type === "string" && !attribute.multiValued && attribute.mutability !== "readOnly";
}

/**
 * The form in which a value of a unique attribute is compared: NFC, then lower-cased and composed
 * again unless `caseExact`. Composing first makes canonically equivalent inputs fold alike;
 * composing after makes the key NFC whatever the case mapping produced.
 *
 * @example uniqueValue("A\u030Angstro\u0308m", false) === "\u00e5ngstr\u00f6m"
 */
export function uniqueValue(value: string, caseExact: boolean): string {
  const composed = value.normalize("NFC");
  return caseExact ? composed : composed.toLowerCase().normalize("NFC");
}
