-- The opening of the scripts that take several keys at once (acquire-multi.lua, acquire-multi-fenced.lua),
-- prepended to each when it is loaded. ARGV[1] token, ARGV[2] ttl ms.

-- Over the lock keys KEYS[1 .. n]: nil when none of them exists, else the refusal: -(PTTL + 2) of the existing
-- key that lives longest (-1 when one has no expiry), so that a waiting caller knows when all are free again.
local function refusal(n)
    local longest = -2
    for i = 1, n do
        local left = redis.call('pttl', KEYS[i])
        if left == -1 then
            return -1
        end
        if left > longest then
            longest = left
        end
    end
    if longest >= 0 then
        return -(longest + 2)
    end
    return nil
end

-- Sets the lock keys KEYS[1 .. n] to the token with the ttl, as SET PX (the single-key lock's layout).
local function set_all(n)
    for i = 1, n do
        redis.call('set', KEYS[i], ARGV[1], 'PX', ARGV[2])
    end
end
