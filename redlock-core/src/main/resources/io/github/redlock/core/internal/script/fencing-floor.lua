-- A node's fencing counter KEYS[1] and its repair mark KEYS[2]: the run_id of the server process whose counter
-- was last repaired (a restart, even from an old snapshot, changes the run_id), a space, and the counter as that
-- repair left it (a counter still at that value has seen no grant since). Runs after fence-prelude.lua.
-- Without ARGV: returns { counter or -1 when absent, mark or '', the server's clock in µs (clock_floor) }.
-- With ARGV[1] (the node's run_id, as the client read it on this connection) and ARGV[2] (a floor): raises the
-- counter to at least the floor and at least the server's clock in µs (clock_floor: the floor that still holds
-- when every node lost its counter), never lowers it, sets the mark, and returns { counter, mark }.
local counter = redis.call('get', KEYS[1])
if ARGV[2] then
    local floor = ARGV[2]
    local clock = clock_floor()
    if tonumber(clock) > tonumber(floor) then
        floor = clock
    end
    if not counter or tonumber(counter) < tonumber(floor) then
        redis.call('set', KEYS[1], floor)
        counter = floor
    end
    redis.call('set', KEYS[2], ARGV[1] .. ' ' .. counter)
end
if ARGV[2] then
    return { tonumber(counter or '-1'), redis.call('get', KEYS[2]) or '' }
end
return { tonumber(counter or '-1'), redis.call('get', KEYS[2]) or '', tonumber(clock_floor()) }
