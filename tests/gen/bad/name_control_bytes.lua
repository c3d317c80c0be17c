-- expect: bad/name_control_bytes.lua:3: command 'X\010command "Y" {}': name must be one word or a container and a subcommand separated by one space
-- Control bytes in a name are shown escaped, so a message stays one line and cannot pass for two.
command 'X\ncommand "Y" {}' {
    string "a",
}
