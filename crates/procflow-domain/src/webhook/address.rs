//! Which destination addresses a webhook may not reach (API contract 8.3), so that an endpoint
//! cannot make procflow call into its own network.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressRefusal {
    /// 127/8, `::1`.
    Loopback,
    /// 10/8, 172.16/12, 192.168/16.
    Private,
    /// 169.254/16, fe80::/10.
    LinkLocal,
    /// fc00::/7 (fd00::/8 included).
    UniqueLocal,
    /// 100.64/10 (carrier-grade NAT).
    SharedAddressSpace,
    /// 224/4, ff00::/8.
    Multicast,
    /// 0/8, `::`.
    Unspecified,
    /// Cloud metadata services outside the ranges above (Azure's 168.63.129.16).
    CloudMetadata,
    /// Reserved, documentation, benchmarking, broadcast, or a transition range that embeds
    /// or tunnels another address.
    Reserved,
}

impl fmt::Display for AddressRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Loopback => "loopback",
            Self::Private => "private",
            Self::LinkLocal => "link-local",
            Self::UniqueLocal => "unique-local",
            Self::SharedAddressSpace => "carrier-grade NAT",
            Self::Multicast => "multicast",
            Self::Unspecified => "unspecified",
            Self::CloudMetadata => "cloud metadata",
            Self::Reserved => "reserved",
        })
    }
}

/// Why `ip` is refused as a webhook destination, `None` when it may be reached. IPv4-mapped
/// and NAT64 IPv6 addresses are judged by the IPv4 address they carry; SIIT's IPv4-translated
/// ones (`::ffff:0:0:0/96`) are all refused, a private IPv4 inside for what it is.
///
/// ```
/// use procflow_domain::webhook::{AddressRefusal, refusal};
///
/// assert_eq!(refusal("127.0.0.1".parse().unwrap()), Some(AddressRefusal::Loopback));
/// assert_eq!(refusal("::ffff:10.0.0.1".parse().unwrap()), Some(AddressRefusal::Private));
/// assert_eq!(refusal("::ffff:0:127.0.0.1".parse().unwrap()), Some(AddressRefusal::Loopback));
/// assert_eq!(refusal("93.184.215.14".parse().unwrap()), None);
/// ```
#[must_use]
pub fn refusal(ip: IpAddr) -> Option<AddressRefusal> {
    match ip {
        IpAddr::V4(v4) => refusal_v4(v4),
        IpAddr::V6(v6) => refusal_v6(v6),
    }
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], bits: u32) -> bool {
    let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
    u32::from(ip) & mask == u32::from(Ipv4Addr::from(net)) & mask
}

fn refusal_v4(ip: Ipv4Addr) -> Option<AddressRefusal> {
    use AddressRefusal as R;
    const RANGES: &[([u8; 4], u32, AddressRefusal)] = &[
        ([0, 0, 0, 0], 8, R::Unspecified),
        ([10, 0, 0, 0], 8, R::Private),
        ([100, 64, 0, 0], 10, R::SharedAddressSpace),
        ([127, 0, 0, 0], 8, R::Loopback),
        ([169, 254, 0, 0], 16, R::LinkLocal),
        ([172, 16, 0, 0], 12, R::Private),
        ([192, 0, 0, 0], 24, R::Reserved),
        ([192, 0, 2, 0], 24, R::Reserved),
        ([192, 88, 99, 0], 24, R::Reserved),
        ([192, 168, 0, 0], 16, R::Private),
        ([198, 18, 0, 0], 15, R::Reserved),
        ([198, 51, 100, 0], 24, R::Reserved),
        ([203, 0, 113, 0], 24, R::Reserved),
        ([224, 0, 0, 0], 4, R::Multicast),
        ([240, 0, 0, 0], 4, R::Reserved),
        ([168, 63, 129, 16], 32, R::CloudMetadata),
    ];
    RANGES
        .iter()
        .find(|(net, bits, _)| in_v4(ip, *net, *bits))
        .map(|(_, _, why)| *why)
}

fn in_v6(ip: Ipv6Addr, net: [u16; 8], bits: u32) -> bool {
    let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
    u128::from(ip) & mask == u128::from(Ipv6Addr::from(net)) & mask
}

fn refusal_v6(ip: Ipv6Addr) -> Option<AddressRefusal> {
    use AddressRefusal as R;
    if ip.is_unspecified() {
        return Some(R::Unspecified);
    }
    if ip.is_loopback() {
        return Some(R::Loopback);
    }
    if let Some(v4) = ip.to_ipv4_mapped() {
        return refusal_v4(v4);
    }
    // NAT64 (64:ff9b::/96) reaches the IPv4 address in its last 32 bits.
    if in_v6(ip, [0x64, 0xff9b, 0, 0, 0, 0, 0, 0], 96) {
        let [.., a, b, c, d] = ip.octets();
        return refusal_v4(Ipv4Addr::new(a, b, c, d));
    }
    // SIIT's IPv4-translated addresses (::ffff:0:0:0/96, RFC 2765) name the IPv4 address in
    // their last 32 bits too, to a translator; no public endpoint is reached that way, so the
    // whole range is refused, a private address inside it for what it is.
    if in_v6(ip, [0, 0, 0, 0, 0xffff, 0, 0, 0], 96) {
        let [.., a, b, c, d] = ip.octets();
        return Some(refusal_v4(Ipv4Addr::new(a, b, c, d)).unwrap_or(R::Reserved));
    }
    const RANGES: &[([u16; 8], u32, AddressRefusal)] = &[
        // IPv4-compatible (deprecated) and the rest of ::/96.
        ([0, 0, 0, 0, 0, 0, 0, 0], 96, R::Reserved),
        ([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48, R::Reserved),
        ([0x100, 0, 0, 0, 0, 0, 0, 0], 64, R::Reserved),
        // Teredo and 6to4 tunnel to addresses we cannot judge here.
        ([0x2001, 0, 0, 0, 0, 0, 0, 0], 32, R::Reserved),
        ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32, R::Reserved),
        ([0x2002, 0, 0, 0, 0, 0, 0, 0], 16, R::Reserved),
        ([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, R::UniqueLocal),
        ([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10, R::LinkLocal),
        ([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10, R::Reserved),
        ([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, R::Multicast),
    ];
    RANGES
        .iter()
        .find(|(net, bits, _)| in_v6(ip, *net, *bits))
        .map(|(_, _, why)| *why)
}

#[cfg(test)]
mod tests {
    use super::*;
    use AddressRefusal as R;

    #[test]
    fn the_contracts_table_is_refused() {
        for (ip, why) in [
            ("127.0.0.1", R::Loopback),
            ("127.255.0.9", R::Loopback),
            ("::1", R::Loopback),
            ("::ffff:127.0.0.1", R::Loopback),
            ("0.0.0.0", R::Unspecified),
            ("::", R::Unspecified),
            ("10.1.2.3", R::Private),
            ("172.16.0.1", R::Private),
            ("172.31.255.255", R::Private),
            ("192.168.1.1", R::Private),
            ("169.254.169.254", R::LinkLocal),
            ("fe80::1", R::LinkLocal),
            ("fd00::1", R::UniqueLocal),
            ("fd00:ec2::254", R::UniqueLocal),
            ("fc00::1", R::UniqueLocal),
            ("100.64.0.1", R::SharedAddressSpace),
            ("100.100.100.200", R::SharedAddressSpace),
            ("224.0.0.1", R::Multicast),
            ("ff02::1", R::Multicast),
            ("255.255.255.255", R::Reserved),
            ("168.63.129.16", R::CloudMetadata),
            ("64:ff9b::a00:1", R::Private),
            ("::127.0.0.1", R::Reserved),
            ("::ffff:0:127.0.0.1", R::Loopback),
            ("::ffff:0:10.0.0.1", R::Private),
            ("::ffff:0:169.254.169.254", R::LinkLocal),
            ("::ffff:0:8.8.8.8", R::Reserved),
            ("::ffff:0:0:0", R::Unspecified),
            ("2002:7f00:1::", R::Reserved),
        ] {
            let address: IpAddr = ip.parse().unwrap();
            assert_eq!(refusal(address), Some(why), "{ip}");
        }
    }

    #[test]
    fn public_addresses_are_allowed() {
        for ip in [
            "93.184.215.14",
            "8.8.8.8",
            "172.32.0.1",
            "172.15.255.255",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert_eq!(refusal(ip.parse().unwrap()), None, "{ip}");
        }
    }
}
