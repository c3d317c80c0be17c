-- expect: respgen: --prefix 'mycompany_redis_proxy_v2_for_the_whole_team' is 43 characters long, over the limit of 40
-- flags: --prefix mycompany_redis_proxy_v2_for_the_whole_team
-- status: 2
-- Every generated name starts with the prefix: one past 40 characters is refused by name.
command "X" {}
