import { describe, expect, it } from "vitest";
import { forbiddenRangeOf } from "./forbidden-address-ranges.js";
import { OutboundAddressRefusedError, outboundAddressPolicy } from "./outbound-address-policy.js";

/** The rule `url` is refused under, or "allowed". */
async function verdict(url: string, allowHosts: readonly string[] = []): Promise<string> {
  try {
    await outboundAddressPolicy({ allowHosts }).check(new URL(url));
    return "allowed";
  } catch (error) {
    if (error instanceof OutboundAddressRefusedError) return error.rule;
    throw error;
  }
}

describe("the outbound address policy", () => {
  it("refuses every spelling of loopback the issue delivered to, after the WHATWG URL parser and DNS", async () => {
    for (const url of [
      "http://127.0.0.1:8080/events",
      "http://localhost/events",
      "http://LOCALHOST./events",
      "http://[::1]/",
      "http://2130706433/",
      "http://0x7f.1/",
      "http://127.1/",
      "http://0177.0.0.1/",
      "http://017700000001/",
      "http://[::ffff:127.0.0.1]/",
      "http://[0:0:0:0:0:ffff:7f00:1]/",
      "https://127.255.255.254/",
    ]) {
      expect(await verdict(url), url).toBe("loopback");
    }
  });

  it("refuses private, link-local, metadata, CGNAT, unique-local and the other special-purpose ranges, also inside IPv6", async () => {
    const cases: readonly [string, string][] = [
      ["http://10.1.2.3/", "private"],
      ["http://172.16.0.1/", "private"],
      ["http://172.31.255.255/", "private"],
      ["http://192.168.1.1/", "private"],
      ["http://169.254.169.254/latest/meta-data/", "cloud metadata"],
      ["http://[::ffff:169.254.169.254]/", "cloud metadata"],
      ["http://[64:ff9b::a9fe:a9fe]/", "cloud metadata"],
      ["http://[fd00:ec2::254]/", "cloud metadata"],
      ["http://100.100.100.200/", "cloud metadata"],
      ["http://metadata.google.internal/computeMetadata/v1/", "cloud metadata"],
      ["http://metadata.google.internal./", "cloud metadata"],
      ["http://169.254.1.1/", "link-local"],
      ["http://[fe80::1]/", "link-local"],
      ["http://100.64.0.1/", "shared (CGNAT)"],
      ["http://100.127.255.254/", "shared (CGNAT)"],
      ["http://[fd12:3456::1]/", "unique-local"],
      ["http://[fc00::1]/", "unique-local"],
      ["http://[::ffff:10.0.0.1]/", "private"],
      ["http://[64:ff9b::c0a8:101]/", "private"],
      ["http://[64:ff9b:1::1]/", "local-use NAT64"],
      ["http://[::7f00:1]/", "IPv4-compatible"],
      ["http://0.0.0.0/", "unspecified"],
      ["http://0/", "unspecified"],
      ["http://[::]/", "unspecified"],
      ["http://192.0.0.8/", "IETF protocol assignment"],
      ["http://198.18.0.1/", "benchmarking"],
      ["http://192.0.2.1/", "documentation"],
      ["http://[2001:db8::1]/", "documentation"],
      ["http://224.0.0.1/", "multicast"],
      ["http://[ff02::1]/", "multicast"],
      ["http://255.255.255.255/", "broadcast"],
      ["http://240.0.0.1/", "reserved"],
    ];
    for (const [url, rule] of cases) expect(await verdict(url), url).toBe(rule);
  });

  it("lets public addresses through, IPv4 ones inside IPv6 too", async () => {
    for (const url of [
      "https://8.8.8.8/",
      "https://172.32.0.1/",
      "https://100.128.0.1/",
      "https://169.255.0.1/",
      "https://[2606:4700:4700::1111]/",
      "https://[::ffff:8.8.8.8]/",
      "https://[64:ff9b::808:808]/",
      // RFC 6761 §6.4: never resolves, so nothing can be reached through it; each connection looks again.
      "https://receiver.invalid/",
    ]) {
      expect(await verdict(url), url).toBe("allowed");
    }
    expect(forbiddenRangeOf("fe80::1%eth0")?.rule).toBe("link-local");
  });

  it("names the rule and the setting that allows the host, without the addresses a name resolves to", async () => {
    const policy = outboundAddressPolicy({ allowSetting: "SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS" });
    await expect(policy.check(new URL("http://2130706433/"))).rejects.toThrow(
      "127.0.0.1 is a loopback address; ask the operator to allow it with SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS",
    );
    const refusal = await policy.check(new URL("http://localhost:9/")).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(OutboundAddressRefusedError);
    expect((refusal as Error).message).toBe(
      "localhost resolves to a loopback address; ask the operator to allow it with SCIMKIT_EVENT_RECEIVER_ALLOW_HOSTS",
    );
  });

  it("allows the operator's addresses, CIDR ranges and host names, and nothing beside them", async () => {
    expect(await verdict("http://127.0.0.1:4000/", ["127.0.0.1"])).toBe("allowed");
    expect(await verdict("http://127.1/", ["127.0.0.1"])).toBe("allowed");
    expect(await verdict("http://127.0.0.2/", ["127.0.0.1"])).toBe("loopback");
    expect(await verdict("http://[::1]/", ["127.0.0.1"])).toBe("loopback");
    expect(await verdict("http://10.20.30.40/", ["10.0.0.0/8"])).toBe("allowed");
    expect(await verdict("http://192.168.0.1/", ["10.0.0.0/8"])).toBe("private");
    expect(await verdict("http://[fd12::5]/", ["fd12::/16"])).toBe("allowed");
    expect(await verdict("http://[::1]/", ["[::1]"])).toBe("allowed");
    // A name is allowed by its name, whatever it resolves to; another name resolving there is not.
    expect(await verdict("http://localhost/", ["localhost"])).toBe("allowed");
    expect(await verdict("http://LocalHost./", ["localhost"])).toBe("allowed");
    expect(await verdict("http://metadata.google.internal/", ["metadata.google.internal"])).toBe("allowed");
    expect(await verdict("http://127.0.0.1/", ["localhost"])).toBe("loopback");
    for (const entry of ["10.0.0.0/33", "10.0.0.0/", "10.0.0.0/8/8", "a b", "http://x", "x:80", "user@x", "", "::1/129", "siem/8"]) {
      expect(() => outboundAddressPolicy({ allowHosts: [entry] }), entry).toThrow(
        `allowHosts entry ${JSON.stringify(entry)} is not a host name, an IP address or a CIDR range`,
      );
    }
  });

  it("hands a socket only the addresses it checked, and refuses a name at connection time as at registration", async () => {
    const lookup = (policy: ReturnType<typeof outboundAddressPolicy>, all: boolean) =>
      new Promise<unknown>((resolve, reject) =>
        policy.lookup("localhost", { all }, (error, address) => (error ? reject(error) : resolve(address))),
      );
    await expect(lookup(outboundAddressPolicy(), true)).rejects.toBeInstanceOf(OutboundAddressRefusedError);
    await expect(lookup(outboundAddressPolicy(), false)).rejects.toThrow(/resolves to a loopback address/);
    expect(await lookup(outboundAddressPolicy({ allowHosts: ["127.0.0.0/8", "::1"] }), true)).toEqual(
      expect.arrayContaining([{ address: "127.0.0.1", family: 4 }]),
    );
    expect(await lookup(outboundAddressPolicy({ allowHosts: ["localhost"] }), false)).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});
