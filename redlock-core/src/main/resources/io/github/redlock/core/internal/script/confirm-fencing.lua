-- Confirms a lease's fencing token on one node: while KEYS[1] (the lock's or the writer's key) holds the
-- lease's token ARGV[1], raises the node's fencing counter KEYS[2] (on a cluster node, the lock's own) to at least
-- ARGV[2]; never lowers it.
-- Returns 1 when the key was still the lease's, else 0 (and changes nothing).
if redis.call('get', KEYS[1]) ~= ARGV[1] then
    return 0
end
local counter = redis.call('get', KEYS[2])
if not counter or tonumber(counter) < tonumber(ARGV[2]) then
    redis.call('set', KEYS[2], ARGV[2], 'KEEPTTL')
end
-- A lock's own counter on a cluster node (see fence-prelude.lua) is kept 10 minutes from its last raise.
if string.sub(KEYS[2], -6) == '\255fence' then
    redis.call('pexpire', KEYS[2], 600000)
end
return 1
