/**
 * The address ranges an outbound request a tenant points (an event receiver's URL) must not reach
 * unless the operator allows them: this host itself, the networks around it, the cloud's metadata
 * service, and addresses no public service has. Each range has a rule name, so a refusal says
 * which rule it broke. The IANA special-purpose registries (RFC 6890) are the source; an IPv4
 * range is also refused inside IPv6 where the socket would reach the IPv4 address after all:
 * IPv4-mapped (RFC 4291 §2.5.5.2) and NAT64 (RFC 6052 §2.1) addresses.
 */
import { BlockList, isIP } from "node:net";

/** A refused range's rule: `rule` names it in refusals, `described` is the phrase after the address. */
export interface ForbiddenRange {
  /** The rule's name, e.g. `"loopback"`. */
  readonly rule: string;
  /** What the address is, with its article: `"a loopback address"`. */
  readonly described: string;
}

type Subnets = readonly (readonly [address: string, prefix: number])[];

interface RangeDefinition extends ForbiddenRange {
  readonly v4?: Subnets;
  readonly v6?: Subnets;
}

/** In order: the first range an address falls in names the rule (metadata before link-local, broadcast before reserved). */
const RANGES: readonly RangeDefinition[] = [
  {
    rule: "cloud metadata",
    described: "a cloud metadata service address",
    // AWS, GCP, Azure, Oracle: 169.254.169.254; Alibaba: 100.100.100.200; AWS over IPv6: fd00:ec2::254.
    v4: [
      ["169.254.169.254", 32],
      ["100.100.100.200", 32],
    ],
    v6: [["fd00:ec2::254", 128]],
  },
  { rule: "loopback", described: "a loopback address", v4: [["127.0.0.0", 8]], v6: [["::1", 128]] },
  {
    rule: "unspecified",
    described: "an unspecified (this-network) address",
    v4: [["0.0.0.0", 8]],
    v6: [["::", 128]],
  },
  {
    rule: "private",
    described: "a private address",
    v4: [
      ["10.0.0.0", 8],
      ["172.16.0.0", 12],
      ["192.168.0.0", 16],
    ],
  },
  { rule: "link-local", described: "a link-local address", v4: [["169.254.0.0", 16]], v6: [["fe80::", 10]] },
  { rule: "shared (CGNAT)", described: "a shared (CGNAT) address", v4: [["100.64.0.0", 10]] },
  { rule: "unique-local", described: "a unique-local address", v6: [["fc00::", 7]] },
  { rule: "IETF protocol assignment", described: "an IETF protocol assignment address", v4: [["192.0.0.0", 24]] },
  { rule: "benchmarking", described: "a benchmarking address", v4: [["198.18.0.0", 15]] },
  {
    rule: "documentation",
    described: "a documentation address",
    v4: [
      ["192.0.2.0", 24],
      ["198.51.100.0", 24],
      ["203.0.113.0", 24],
    ],
    v6: [["2001:db8::", 32]],
  },
  { rule: "multicast", described: "a multicast address", v4: [["224.0.0.0", 4]], v6: [["ff00::", 8]] },
  { rule: "broadcast", described: "the broadcast address", v4: [["255.255.255.255", 32]] },
  { rule: "reserved", described: "a reserved address", v4: [["240.0.0.0", 4]] },
  // RFC 4291 §2.5.5.1: deprecated, and where a stack still honours it, it reaches the IPv4 address.
  { rule: "IPv4-compatible", described: "an IPv4-compatible (deprecated) address", v6: [["::", 96]] },
  // RFC 8215: a network's own NAT64 prefix, translated to whatever IPv4 addresses that network chose.
  { rule: "local-use NAT64", described: "a local-use NAT64 address", v6: [["64:ff9b:1::", 48]] },
];

/** Where an IPv4 range also lies inside IPv6: IPv4-mapped `::ffff:a.b.c.d` and the NAT64 well-known prefix `64:ff9b::a.b.c.d`. */
const IPV4_INSIDE_IPV6 = ["::ffff:", "64:ff9b::"] as const;

const LISTS: readonly (ForbiddenRange & { readonly list: BlockList })[] = RANGES.map(({ rule, described, v4 = [], v6 = [] }) => {
  const list = new BlockList();
  for (const [address, prefix] of v4) {
    list.addSubnet(address, prefix, "ipv4");
    // Node's BlockList matches an IPv4-mapped address against IPv4 rules itself in some versions,
    // not in all, and NAT64 never: spelled out, the rule does not depend on it.
    for (const inside of IPV4_INSIDE_IPV6) list.addSubnet(`${inside}${address}`, 96 + prefix, "ipv6");
  }
  for (const [address, prefix] of v6) list.addSubnet(address, prefix, "ipv6");
  return { rule, described, list };
});

/**
 * The forbidden range `address` (an IPv4 or IPv6 address as `dns.lookup` or the WHATWG URL
 * parser writes it) falls in, or `undefined` for an address a public service may have.
 *
 * @example forbiddenRangeOf("127.0.0.1") // { rule: "loopback", described: "a loopback address" }
 * @example forbiddenRangeOf("::ffff:a9fe:a9fe") // the cloud metadata rule
 */
export function forbiddenRangeOf(address: string): ForbiddenRange | undefined {
  // A zone index (`fe80::1%eth0`) is the interface, not part of the address.
  const bare = address.replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 0) throw new Error(`scimkit: ${JSON.stringify(address)} is not an IP address`);
  const type = family === 4 ? "ipv4" : "ipv6";
  const found = LISTS.find(({ list }) => list.check(bare, type));
  return found === undefined ? undefined : { rule: found.rule, described: found.described };
}
