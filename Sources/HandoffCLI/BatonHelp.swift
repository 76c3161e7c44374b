/// The text `baton --help` shows under its overview: what Baton is (one paragraph, wrapped to
/// the terminal), then a quick reference of the commands and where to go when machines do not
/// see each other, whose lines are at most `quickReferenceColumns` wide so that an 80-column
/// terminal shows them as written.
public enum BatonHelp {
    /// The widest a line after the first paragraph may be: the help wraps a line as wide as
    /// the terminal, so an 80-column one shows 79 whole.
    public static let quickReferenceColumns = 79

    public static let overview = """
        Work in one terminal, then carry on in another — on this machine or another on the LAN — \
        with the same count, the same text, the cursor in the same place. No account, no server: \
        peers find each other by UDP multicast, encrypted with a group key they share.

          baton                           a counter (+ / - / r, q quits)
          baton edit notes.txt            a small editor (Ctrl-S saves, Ctrl-Q quits)
          baton shell                     a shell another terminal can continue live
          baton --continue-activity       continue what another terminal is doing
          baton --continue-activity dev.baton.editing   … only an editing session
          baton follow                    watch another terminal's session live
          baton monitor                   watch what peers offer, without a UI
          baton pair                      give a new machine this machine's group key
          baton pair --join               join a machine running baton pair
          baton id                        this machine's fingerprint, to check a list
          baton devices                   the machines this one paired with
          baton key                       show this machine's group key (for scripts)
          baton doctor                    find out why machines do not see each other
          baton config                    each setting in use, and where it came from
          baton kv set KEY VALUE          keep a setting the same on every machine
          baton kv get KEY                … and read it (also kv list, rm, watch)
          baton peer announce|listen|continue   a headless peer, for scripts

        Options go after the command: baton edit --peer HOST notes.txt.
        In the app, Ctrl-N (n in the counter) lists what is nearby; Enter continues it.
        Continued elsewhere, a session follows there live: Ctrl-T (t) takes it back.
        Environment: BATON_KEY, BATON_GROUP, BATON_PORT, BATON_TTL, BATON_INTERFACE,
        BATON_PEERS, BATON_RELAY, BATON_LOG.
        No multicast between two machines (Wi-Fi isolation, VPN)? Name the other one
        on one side: --peer HOST.
        On another subnet, VLAN or site? Meet at an MQTT broker: --relay mqtt://HOST.
        A broker that wants a login: --relay-user NAME, the password in
        BATON_RELAY_PASSWORD or --relay-password-file FILE (never on the command line).
        """
}
