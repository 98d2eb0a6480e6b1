-- Compare-and-extend of a lock on several keys, one node: while every one of KEYS holds this client's token
-- ARGV[1], makes each key's time to live at least ARGV[2] ms (never shorter). Returns the shortest time to live
-- of the keys in ms afterwards (at least 1), or 0, changing nothing, when any key is gone or someone else's.
for i = 1, #KEYS do
    if redis.call('get', KEYS[i]) ~= ARGV[1] then
        return 0
    end
end
local ttl = tonumber(ARGV[2])
local shortest = nil
for i = 1, #KEYS do
    local left = redis.call('pttl', KEYS[i])
    if left < ttl then
        redis.call('pexpire', KEYS[i], ttl)
        left = ttl
    end
    if shortest == nil or left < shortest then
        shortest = left
    end
end
return shortest
