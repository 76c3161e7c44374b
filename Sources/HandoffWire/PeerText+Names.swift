import CUnistring
import FoundationEssentials
import Glibc

extension PeerText {
    /// What `text` looks like, roughly: every scalar with a hazard removed (the invisible ones
    /// included), then compatibility-decomposed (NFKD: ｆｕｌｌ → full, ﬁ → fi, ① → 1) and
    /// folded for case, diacritics and width, with runs of white space made one space and
    /// none at the ends. Names that look alike on a terminal have equal skeletons: `alice`,
    /// `Alice`, `alicé`, `ａｌｉｃｅ`, `al\u{200B}ice`. (Letters of other scripts that merely look
    /// alike, such as Cyrillic а for Latin a, are not folded.)
    public static func skeleton(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where hazard(of: scalar) == nil { kept.append(scalar) }
        var folded = String.UnicodeScalarView()
        for scalar in caseFoldedNFKD(String(kept)).unicodeScalars where scalar.properties.generalCategory != .nonspacingMark {
            folded.append(scalar)
        }
        return String(folded).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `text` case-folded and in normalization form KD (libunistring's `u8_casefold`); `text`
    /// itself when that fails (it cannot run out of memory for a name of a few hundred bytes).
    private static func caseFoldedNFKD(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var length = 0
        guard let folded = bytes.withUnsafeBufferPointer({ buffer in
            u8_casefold(buffer.baseAddress, buffer.count, nil, baton_uninorm_nfkd(), nil, &length)
        }) else { return text }
        defer { free(folded) }
        return String(decoding: UnsafeBufferPointer(start: folded, count: length), as: UTF8.self)
    }

    /// How to show each of `peers`' names, in the same order: the name made `visible`, and,
    /// when a different sender's name has the same `skeleton`, " #" and the start of the
    /// sender ID in hex — at least 4 digits, as many as it takes to tell those senders apart.
    ///
    ///     alice@laptop #3fa2
    ///     alice@laptop #91c0     (another sender, or an impostor: now one can see there are two)
    ///     bob@desk
    public static func nameLabels(_ peers: [(name: String, sender: SenderID)]) -> [String] {
        let skeletons = peers.map { skeleton($0.name) }
        var senders: [String: Set<SenderID>] = [:]
        for (peer, key) in zip(peers, skeletons) { senders[key, default: []].insert(peer.sender) }
        var digits: [String: Int] = [:]
        for (key, group) in senders where group.count > 1 { digits[key] = distinguishingDigits(group) }
        return zip(peers, skeletons).map { peer, key in
            let name = visible(peer.name)
            guard let count = digits[key] else { return name }
            return name + " #" + String(hex(peer.sender).prefix(count))
        }
    }

    /// The fewest hex digits, at least 4, whose prefixes of the sender IDs are all different.
    private static func distinguishingDigits(_ senders: Set<SenderID>) -> Int {
        let all = senders.map(hex)
        for count in 4..<32 where Set(all.map { $0.prefix(count) }).count == all.count { return count }
        return 32
    }

    private static func hex(_ sender: SenderID) -> String {
        PlainText.hex(sender.bytes)
    }
}
