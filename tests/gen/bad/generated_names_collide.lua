-- expect: bad/generated_names_collide.lua:14: command 'A B': generated name 'generated_names_collide_a_b_measure' is also the function of command 'A', argument 'b'
-- expect: bad/generated_names_collide.lua:14: command 'A B': generated name 'generated_names_collide_a_b_op_table' is also the table of command 'A', argument 'b'
-- expect: bad/generated_names_collide.lua:14: command 'A B': generated name 'generated_names_collide_a_b_put' is also the function of command 'A', argument 'b'
-- Generated C names must stay distinct: the type of A's oneof "b" has the
-- functions bad_a_b_measure and bad_a_b_put, and so has the command "A B".
command "A" {
    oneof "b" {
        optional = true,
        integer "x" { token = "X" },
        integer "y" { token = "Y" },
    },
}

command "A B" {}
