// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "baton",
    // Linux only: the terminal backend and the file writes call Glibc, so no Apple platform is claimed.
    products: [
        .executable(name: "baton", targets: ["baton"]),
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "PropertyListFoundation", targets: ["PropertyListFoundation"]),
        .library(name: "HandoffWire", targets: ["HandoffWire"]),
        .library(name: "Handoff", targets: ["Handoff"]),
        .library(name: "HandoffMulticast", targets: ["HandoffMulticast"]),
        .library(name: "HandoffTesting", targets: ["HandoffTesting"]),
        .library(name: "HandoffRelay", targets: ["HandoffRelay"]),
        .library(name: "HandoffStore", targets: ["HandoffStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // The property-list value, its strict binary reader, canonical writer and Codable bridge.
        // Foundation only: nothing of Baton, no Crypto, no Logging.
        .target(name: "PropertyList"),
        .target(name: "PropertyListFoundation", dependencies: ["PropertyList"]),
        // What is bytes on the wire and what makes and checks them (docs/PROTOCOL.md): the
        // datagram header and codec, sealing, the messages and records they carry, the record
        // digest, the state stream's frames, handshake and connection machines, pairing.
        // Knows nothing of activities, directories or clocks.
        .target(
            name: "HandoffWire",
            dependencies: ["PropertyList", "COpenSSL", "CUnistring", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .systemLibrary(name: "CUnistring", providers: [.apt(["libunistring-dev"])]),
        // OpenSSL's libcrypto, as a system library like ncurses: the state stream's
        // ChaCha20-Poly1305, sealed from and opened into buffers of Baton's own, which
        // swift-crypto's API does not offer (BENCHMARKS.md, "The stream (issue 18)").
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Files written whole and read with care: AtomicFile, RegularFile, the group key's file.
        .target(
            name: "BatonFiles",
            dependencies: ["HandoffWire", "CPseudoterminal", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        // The library: activities, registry, save pipeline, the protocol's rules, peer directory.
        .target(
            name: "Handoff",
            dependencies: [
                "PropertyList", "HandoffWire", "CTimerfd",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Test doubles for programs built on Handoff: an in-memory network with seeded faults,
        // and a clock that moves only when told. Like NIOEmbedded beside NIOPosix: `baton` does
        // not link it.
        .target(name: "HandoffTesting", dependencies: ["Handoff", "HandoffWire", .product(name: "Crypto", package: "swift-crypto")]),
        // The key-value store that follows you: NSUbiquitousKeyValueStore on the group's devices.
        .target(name: "HandoffStore", dependencies: ["Handoff", "HandoffWire", "PropertyList", "BatonFiles"]),
        // The UDP multicast transport over SwiftNIO.
        .target(
            name: "HandoffMulticast",
            dependencies: [
                "Handoff", "HandoffWire", "CNetlink",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Linux's routing netlink, which the Glibc module leaves out: the transport hears when
        // the interfaces change rather than looking every second.
        .systemLibrary(name: "CNetlink"),
        // `baton pair` on SwiftNIO: the HELLO datagrams and the one TCP connection, driving
        // Handoff's `PairingMachine`.
        .target(
            name: "HandoffPairing",
            dependencies: [
                "Handoff", "HandoffWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // libmosquitto, the MQTT client library, as a system library like ncurses.
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // The relay: datagrams and the state stream through an MQTT broker, for peers that
        // multicast cannot reach (another subnet, another site).
        .target(
            name: "HandoffRelay",
            dependencies: [
                "Handoff", "HandoffWire", "CMosquitto", "COpenSSL",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The declared activity types (an Info.plist-style registry), compiled into the programs
        // so that a copied or installed binary needs no resource folder beside it.
        .target(
            name: "BatonResources",
            path: "Resources",
            exclude: ["README.md"],
            resources: [.embedInCode("Registry/ActivityTypes.plist")]
        ),
        // The membership on disk: identity, group key and device list, loaded into a `Membership`,
        // stored when it changes, and kept in step with what other Baton processes write.
        .target(name: "BatonMembership", dependencies: ["Handoff", "HandoffWire", "BatonFiles"]),
        // `baton doctor`'s checks: interfaces, firewall rules, the key file, the multicast
        // self-test, listening, unicast peers and the relay.
        .target(
            name: "BatonDoctor",
            dependencies: [
                "Handoff", "HandoffWire", "BatonFiles", "BatonMembership", "HandoffMulticast", "HandoffRelay",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // What the commands share on the command line: network options, key, registry, monitor output.
        .target(
            name: "HandoffCLI",
            dependencies: [
                "Handoff", "HandoffWire", "PropertyList", "BatonFiles", "BatonMembership", "BatonDoctor", "HandoffMulticast",
                "HandoffRelay", "BatonResources",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The work of `baton kv`, apart from parsing and printing: the arguments it checks, the
        // store on disk and on the network, and what each command comes to. Tests drive it.
        .target(
            name: "BatonCommands",
            dependencies: [
                "BatonApp", "HandoffCLI", "HandoffStore", "Handoff", "HandoffWire", "PropertyList", "BatonFiles", "BatonMembership",
                "BatonRuntime", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // Cells, keys and the backend protocol; knows nothing of ncurses.
        .target(name: "TerminalUI"),
        // The app as model / message / update / view: pure, no I/O.
        .target(
            name: "BatonApp",
            dependencies: ["Handoff", "HandoffWire", "PropertyList", "TerminalUI"]),
        // The app's effects: the Program that runs BatonApp over a backend and an activity
        // center, and the editor's files.
        .target(
            name: "BatonRuntime",
            dependencies: [
                "BatonApp", "Handoff", "HandoffWire", "BatonFiles", "TerminalUI",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `baton shell`'s model and wire: a terminal screen as cells, the keys a terminal sends, the
        // messages of a shell session (docs/PROTOCOL.md section 20) and the keeper's rules. No I/O.
        .target(name: "BatonShell", dependencies: ["PropertyList"]),
        // What glibc declares for pseudo-terminals only under _GNU_SOURCE.
        .systemLibrary(name: "CPseudoterminal"),
        // Linux's timerfd, for the main actor's timers (Handoff's `MainQueueTimers`).
        .systemLibrary(name: "CTimerfd"),
        // sched_setaffinity, which glibc declares only under _GNU_SOURCE (`handoff-bench wake`).
        .systemLibrary(name: "CSchedule"),
        // libvterm, the terminal emulator library, as a system library like ncurses.
        .systemLibrary(name: "CVTerm", pkgConfig: "vterm", providers: [.apt(["libvterm-dev"])]),
        // The session's effects: the program on a pseudo-terminal, its screen in libvterm, and
        // the keeper that serves it to the terminals that drive and follow it.
        .target(
            name: "ShellHost",
            dependencies: [
                "BatonShell", "CVTerm", "CPseudoterminal", "Handoff", "HandoffWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .systemLibrary(name: "CNCurses", pkgConfig: "ncursesw", providers: [.apt(["libncurses-dev"])]),
        // What both terminals on ncurses share: the one lock around ncurses, opening a terminal
        // with newterm in Baton's modes, the input thread's poll on it and a wake pipe, the
        // signal handlers that give the terminal back, terminfo, grapheme clusters in cells.
        .target(name: "NCursesCore", dependencies: ["CNCurses", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        .target(name: "NCursesBackend", dependencies: ["TerminalUI", "CNCurses", "NCursesCore", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        // `baton shell`'s terminal side: a session's screen (cells, not the program's bytes) drawn
        // through ncurses, and what the user types decoded into keys as keys, mouse and paste.
        .target(name: "ShellDisplay", dependencies: ["BatonShell", "CNCurses", "NCursesCore"]),
        .executableTarget(
            name: "baton",
            dependencies: [
                "Handoff", "HandoffWire", "BatonFiles", "HandoffMulticast", "HandoffPairing", "HandoffCLI", "BatonResources",
                "BatonApp", "BatonRuntime", "TerminalUI", "HandoffStore", "PropertyList", "BatonMembership", "BatonDoctor",
                "BatonCommands", "NCursesBackend", "BatonShell", "ShellHost", "ShellDisplay",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Release-build benchmarks: `swift run -c release handoff-bench` (`handoff-bench editor`:
        // the editor's model, hence BatonApp).
        .executableTarget(
            name: "handoff-bench",
            dependencies: [
                "Handoff", "HandoffWire", "PropertyList", "HandoffMulticast", "BatonApp", "TerminalUI", "HandoffCLI", "HandoffStore",
                "BatonShell", "ShellHost", "CVTerm", "CSchedule",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .testTarget(
            name: "HandoffTests",
            dependencies: [
                "Handoff", "HandoffWire", "PropertyList", "PropertyListFoundation", "BatonFiles", "HandoffTesting", "BatonResources",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Vectors")]),
        // The reader's, writer's and Codable bridge's tests, with the plists they read.
        .testTarget(name: "PropertyListTests", dependencies: ["PropertyList", "PropertyListFoundation"], resources: [.copy("Vectors")]),
        // The bridge to Foundation's property-list types, both ways.
        .testTarget(name: "PropertyListFoundationTests", dependencies: ["PropertyList", "PropertyListFoundation"]),
        // Atomic writes, and the group key's file and its hygiene, in temporary folders.
        .testTarget(name: "BatonFilesTests", dependencies: ["BatonFiles", "HandoffWire"]),
        // The golden vectors (`BATON_WRITE_VECTORS=1` rewrites them; scripts/check-vectors.py
        // checks them independently), pairing, and the datagram budget. `Handoff` only for the
        // OFFER vector's summary, which the core's rule makes.
        .testTarget(
            name: "HandoffWireTests",
            dependencies: ["HandoffWire", "PropertyList", "Handoff", "HandoffTesting", .product(name: "Crypto", package: "swift-crypto")],
            resources: [.copy("Vectors")]),
        .testTarget(
            name: "HandoffMulticastTests",
            dependencies: [
                "Handoff", "HandoffWire", "HandoffMulticast", "HandoffTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // Two ends of a pairing on this machine: by --peer on 127.0.0.1, and by HELLO on loopback.
        .testTarget(
            name: "HandoffPairingTests",
            dependencies: [
                "HandoffPairing", "Handoff", "HandoffTesting", "HandoffWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Starts a private mosquitto on 127.0.0.1 (skipped, saying why, when the binary is missing).
        .testTarget(
            name: "HandoffRelayTests",
            dependencies: [
                "HandoffRelay", "Handoff", "HandoffTesting", "HandoffWire", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI"]),
        // The registry compiled into the programs.
        .testTarget(name: "BatonResourcesTests", dependencies: ["BatonResources", "Handoff", "PropertyList"]),
        // The key-value store: its rules, its file, and stores kept in step on an in-memory LAN.
        // The test doubles themselves: the clock that moves only when told.
        .testTarget(name: "HandoffTestingTests", dependencies: ["HandoffTesting", "Handoff"]),
        .testTarget(
            name: "HandoffStoreTests",
            dependencies: ["HandoffStore", "Handoff", "HandoffWire", "PropertyList", "HandoffTesting"]),
        .testTarget(
            name: "HandoffCLITests",
            dependencies: [
                "HandoffCLI", "Handoff", "HandoffWire", "PropertyList", "BatonFiles", "BatonDoctor", "HandoffMulticast", "HandoffTesting",
            ]),
        // The membership's files, in a temporary home: loading, storing, other processes' writes.
        .testTarget(
            name: "BatonMembershipTests",
            dependencies: ["BatonMembership", "Handoff", "HandoffWire", "BatonFiles", "HandoffTesting"]),
        // The doctor's checks on given interfaces, rules and key files, and its report.
        .testTarget(
            name: "BatonDoctorTests",
            dependencies: ["BatonDoctor", "Handoff", "HandoffWire", "BatonFiles", "HandoffMulticast", "HandoffRelay"]),
        // `baton kv`'s work: its arguments, its text, and the commands over an in-memory LAN.
        .testTarget(
            name: "BatonCommandsTests",
            dependencies: [
                "BatonCommands", "HandoffCLI", "HandoffStore", "Handoff", "HandoffWire", "PropertyList", "BatonFiles",
                "HandoffTesting", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(name: "BatonAppTests", dependencies: ["BatonApp", "Handoff", "HandoffWire", "HandoffTesting", "TerminalUI"]),
        .testTarget(
            name: "BatonRuntimeTests",
            dependencies: [
                "BatonRuntime", "BatonApp", "Handoff", "HandoffWire", "BatonFiles", "HandoffTesting", "TerminalUI",
                "BatonResources", "HandoffStore", "BatonCommands",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "NCursesBackendTests", dependencies: ["NCursesBackend", "NCursesCore", "TerminalUI"]),
        // Terminfo's restore strings and the cells a grapheme takes, without a terminal.
        .testTarget(name: "NCursesCoreTests", dependencies: ["NCursesCore"]),
        // The display's decisions headless (colours, keys, the diff, cropping), then the display
        // itself on a pseudo-terminal the test opens.
        .testTarget(name: "ShellDisplayTests", dependencies: ["ShellDisplay", "BatonShell", "CNCurses", "CPseudoterminal"]),
        // The shell session's model, its wire and the keeper's rules, without I/O.
        .testTarget(name: "BatonShellTests", dependencies: ["BatonShell", "PropertyList"]),
        // libvterm under a real pseudo-terminal, and the keeper over in-memory streams.
        .testTarget(
            name: "ShellHostTests",
            dependencies: ["ShellHost", "BatonShell", "CVTerm", "Handoff", "HandoffWire", "HandoffTesting", .product(name: "Logging", package: "swift-log")]),
        // Drives the built `baton` (its headless peer as `baton peer`) in tmux inside network-namespace hosts.
        .testTarget(name: "BatonEndToEndTests"),
    ]
)
