-- expect: bad/bad_command_name.lua:3: command 'CLIENT KILL NOW': name must be one word or a container and a subcommand separated by one space
-- A command is one word, or a container and a subcommand.
command "CLIENT KILL NOW" {}
