/**
 * The built-in compatibility profiles (architecture §4): every name has a frozen profile, `generic`
 * has every tolerance, `strict` none, and each provider's profile is what the documentation's table says.
 */
import { describe, expect, it } from "vitest";
import type { Tolerances } from "./compatibility-profile.js";
import { COMPATIBILITY_PROFILE_NAMES, isCompatibilityProfileName } from "./compatibility-profile-name.js";
import { ALL_TOLERANCES, COMPATIBILITY_PROFILES, compatibilityProfileNamed } from "./compatibility-profiles.js";

const TOLERANCE_NAMES = Object.keys(ALL_TOLERANCES) as (keyof Tolerances)[];

/** The table of docs/compatibility-profiles.md, tolerance by tolerance: the profiles that have it. */
const TABLE: Readonly<Record<keyof Tolerances, readonly string[]>> = {
  anyCaseOps: ["generic", "entra"],
  stringBooleans: ["generic", "entra"],
  removeByValue: ["generic", "entra", "jumpcloud"],
  bareStringComplex: ["generic", "entra"],
  arrayOfOne: ["generic", "entra"],
  pathKeys: ["generic", "entra"],
  createOnNoMatch: ["generic", "entra"],
  removeAbsent: ["generic", "entra", "okta", "google", "onelogin", "jumpcloud", "ping"],
  foreignSchemaUrns: ["generic", "entra", "google", "onelogin"],
  missingSchemas: ["generic"],
};

describe("COMPATIBILITY_PROFILES", () => {
  it("has one frozen profile per name, named after its key, with every tolerance and response choice", () => {
    expect(Object.keys(COMPATIBILITY_PROFILES)).toEqual([...COMPATIBILITY_PROFILE_NAMES]);
    for (const name of COMPATIBILITY_PROFILE_NAMES) {
      const profile = COMPATIBILITY_PROFILES[name];
      expect(profile.name).toBe(name);
      expect(Object.isFrozen(profile)).toBe(true);
      expect(Object.isFrozen(profile.tolerances)).toBe(true);
      expect(Object.isFrozen(profile.responses)).toBe(true);
      expect(Object.keys(profile.tolerances).sort()).toEqual([...TOLERANCE_NAMES].sort());
      expect(Object.keys(profile.responses).sort()).toEqual(["advertisePagination", "emptyMultiValued", "groupPatch"]);
    }
  });

  it("matches the documented table, tolerance by tolerance", () => {
    for (const tolerance of TOLERANCE_NAMES) {
      const having = COMPATIBILITY_PROFILE_NAMES.filter((name) => COMPATIBILITY_PROFILES[name].tolerances[tolerance]);
      expect(having, tolerance).toEqual(TABLE[tolerance]);
    }
  });

  it("omits empty multi-valued attributes in every built-in profile; strict answers a group PATCH with the group and no pagination block", () => {
    for (const name of COMPATIBILITY_PROFILE_NAMES) expect(COMPATIBILITY_PROFILES[name].responses.emptyMultiValued).toBe("omit");
    expect(COMPATIBILITY_PROFILES.strict.responses).toEqual({
      groupPatch: "resource",
      emptyMultiValued: "omit",
      advertisePagination: false,
    });
    expect(COMPATIBILITY_PROFILES.generic.responses).toEqual({
      groupPatch: "noContent",
      emptyMultiValued: "omit",
      advertisePagination: true,
    });
  });

  it("finds a profile by its exact name only", () => {
    expect(compatibilityProfileNamed("okta")).toBe(COMPATIBILITY_PROFILES.okta);
    expect(compatibilityProfileNamed("Okta")).toBeUndefined();
    expect(compatibilityProfileNamed("toString")).toBeUndefined();
    expect(isCompatibilityProfileName("ping")).toBe(true);
    expect(isCompatibilityProfileName("azure")).toBe(false);
    expect(isCompatibilityProfileName(undefined)).toBe(false);
  });
});
