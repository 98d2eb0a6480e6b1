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
-- key hash-tagged: see ClusterKeys), kept for 10 minutes after its last raise, and never answered below the clock's
-- floor: one that expired starts again there, and so does one that a failover set back (a promoted replica may hold
-- an older value, which replication had not brought up to date). The node-wide counter of other nodes never expires.
local function is_lock_counter(key)
    return string.sub(key, -6) == '\255fence'
end

-- Raises the counter `key` by one and returns it. A counter that did not exist (deleted or evicted without a
-- restart, which no repair notices) starts at the clock's floor instead of 1; a lock's own counter never answers
-- below it.
local function next_fence(key)
    local counter = redis.call('incr', key)
    if is_lock_counter(key) then
        local floor = clock_floor()
        if counter < tonumber(floor) then
            redis.call('set', key, floor)
            counter = tonumber(floor)
        end
        redis.call('pexpire', key, 600000)
        return counter
    end
    if counter == 1 then
        local floor = clock_floor()
        redis.call('set', key, floor)
        return tonumber(floor)
    end
    return counter
end
