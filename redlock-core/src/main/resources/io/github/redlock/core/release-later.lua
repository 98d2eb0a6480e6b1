-- Compare-and-shorten, one node: each of KEYS that still holds this client's token ARGV[1] is left to expire in
-- at most ARGV[2] ms (never later than it would have: a key with less left keeps what it has). Nothing is
-- published: the lock is still held until then, and waiters find it free when they next try.
-- Returns 1 when every key held the token, else 0.
local keep = tonumber(ARGV[2])
local all = 1
for i = 1, #KEYS do
    if redis.call('get', KEYS[i]) == ARGV[1] then
        local left = redis.call('pttl', KEYS[i])
        if left < 0 or left > keep then
            redis.call('pexpire', KEYS[i], keep)
        end
    else
        all = 0
    end
end
return all
