-- The opening of the scripts that raise or repair a node's fencing counter (acquire-fenced.lua,
-- acquire-multi-fenced.lua, acquire-write.lua, fencing-floor.lua), prepended to each when it is loaded.
if redis.replicate_commands then redis.replicate_commands() end

-- The server's clock in microseconds since the epoch, as a decimal string (a Lua number would print only 14
-- digits). The floor of every counter that starts again: one repaired, or one found absent. A counter raised
-- once per fenced grant stays below it unless a node grants a million fenced locks a second, so a counter lost
-- on every node at once (all restarted empty) starts above every token given before, as long as the clocks of
-- the nodes did not go back by more than the time between the two.
local function clock_floor()
    local time = redis.call('time')
    return time[1] .. string.format('%06d', tonumber(time[2]))
end

-- On a Redis Cluster node a lock has a counter of its own, in its key's slot (its key, the byte 0xFF, `fence`, the
-- key hash-tagged: see ClusterKeys), kept for 10 minutes after its last raise: a counter that expired starts again at
-- the clock's floor, above the tokens it gave. The node-wide counter of other nodes never expires.
local function keep_lock_counter(key)
    if string.sub(key, -6) == '\255fence' then
        redis.call('pexpire', key, 600000)
    end
end

-- Raises the counter `key` by one and returns it. A counter that did not exist (deleted or evicted without a
-- restart, which no repair notices, or a lock's counter on a cluster node that expired) starts at the clock's floor
-- instead of 1.
local function next_fence(key)
    local counter = redis.call('incr', key)
    keep_lock_counter(key)
    if counter == 1 then
        local floor = clock_floor()
        redis.call('set', key, floor, 'KEEPTTL')
        return tonumber(floor)
    end
    return counter
end
