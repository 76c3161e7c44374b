/// Baton's own syntaxes, in nanorc form, for machines without nano's files: C, Swift, Python,
/// shell, Markdown and JSON. Tried after the user's and the system's.
enum BuiltInSyntaxes {
    static let definitions: [SyntaxDefinition] = NanorcParser.definitions(in: text, source: "built in")

    static let text = #"""
        syntax c "\.(c|h|cc|cpp|cxx|hpp|hh)$"
        color green "\<(auto|bool|char|const|double|enum|extern|float|inline|int|long|short|signed|sizeof|static|struct|typedef|union|unsigned|void|volatile|size_t|ssize_t|u?int(8|16|32|64)_t)\>"
        color yellow "\<(if|else|for|while|do|switch|case|default|break|continue|goto|return)\>"
        color magenta "\<[0-9]+(\.[0-9]+)?([uUlLfF]+)?\>|\<0[xX][0-9a-fA-F]+\>"
        color cyan "^[[:blank:]]*#[[:blank:]]*[a-z]+"
        color brightyellow ""([^"\]|\\.)*"|'([^'\]|\\.)+'"
        color brightblue "//.*"
        color brightblue start="/\*" end="\*/"

        syntax swift "\.swift$"
        color green "\<(Int|UInt|Int8|Int16|Int32|Int64|UInt8|UInt16|UInt32|UInt64|Double|Float|Bool|String|Character|Array|Dictionary|Set|Optional|Void|Any|AnyObject|Self)\>"
        color yellow "\<(if|else|guard|for|in|while|repeat|switch|case|default|break|continue|return|throw|throws|rethrows|try|catch|defer|do|where|async|await)\>"
        color cyan "\<(import|func|let|var|struct|class|enum|protocol|extension|actor|init|deinit|subscript|typealias|associatedtype|static|private|fileprivate|internal|public|open|package|final|mutating|nonmutating|inout|some|any|weak|unowned|lazy|override|convenience|required|nonisolated|isolated|consuming|borrowing)\>"
        color magenta "\<(true|false|nil|self|super)\>|\<[0-9][0-9_]*(\.[0-9_]+)?\>|\<0x[0-9a-fA-F_]+\>"
        color brightmagenta "@[A-Za-z_]+"
        color brightyellow ""([^"\]|\\.)*""
        color brightblue "//.*"
        color brightblue start="/\*" end="\*/"

        syntax python "\.py$"
        header "^#!.*python"
        color green "\<(int|float|str|bytes|bool|list|dict|set|tuple|object|type|None|True|False)\>"
        color yellow "\<(if|elif|else|for|while|in|not|and|or|is|break|continue|return|yield|try|except|finally|raise|with|as|pass|lambda|await|async|match|case)\>"
        color cyan "\<(def|class|import|from|global|nonlocal|del|assert)\>"
        color brightmagenta "^[[:blank:]]*@[A-Za-z_.]+"
        color brightyellow "'([^'\]|\\.)*'|"([^"\]|\\.)*""
        color brightyellow start="[rRbBuUfF]*'''" end="'''"
        color brightyellow start="[rRbBuUfF]*"""" end="""""
        color brightblue "(^|[[:blank:]])#.*"

        syntax sh "\.(sh|bash|zsh|ksh)$|(^|/)\.?(bashrc|profile|bash_profile|zshrc)$"
        header "^#!.*/(env +)?(ba|da|k|z)?sh\>"
        color yellow "\<(if|then|elif|else|fi|for|in|do|done|while|until|case|esac|function|select|return|break|continue|exit)\>"
        color green "\<(echo|printf|read|cd|export|local|set|unset|shift|source|test|trap|eval|exec)\>"
        color cyan "\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$[0-9#?@*$!-]"
        color brightyellow ""([^"\]|\\.)*"|'[^']*'"
        color brightblue "(^|[[:blank:]])#.*"

        syntax markdown "\.(md|markdown|mkd)$"
        color brightcyan "^#+[[:blank:]].*"
        color yellow "^[[:blank:]]*([*+-]|[0-9]+\.)[[:blank:]]"
        color bold "\*\*[^*]+\*\*|__[^_]+__"
        color magenta "\[[^]]*\]\([^)]*\)"
        color green "`[^`]+`"
        color green start="^[[:blank:]]*```" end="^[[:blank:]]*```"
        color brightblue "^>.*"

        syntax json "\.json$"
        color magenta "\<(true|false|null)\>|-?\<[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?\>"
        color brightyellow ""([^"\]|\\.)*""
        color cyan ""([^"\]|\\.)*"[[:blank:]]*:"
        """#
}
