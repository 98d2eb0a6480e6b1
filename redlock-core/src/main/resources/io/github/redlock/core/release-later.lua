-- Compare-and-shorten, one node: each of KEYS that still holds this client's token ARGV[1] is left to expire in
-- at most ARGV[2] ms (never later than it would have: a key with less left keeps what it has). Its value becomes
-- the token followed by ':released', a value no lease has: the lock stays taken, but no extension of this lease
-- that arrives afterwards lengthens it again, and a repeat of this release changes nothing. Nothing is
-- published: waiters find the lock free when they next try. Returns 1 when every key held the token, else 0.
local keep = tonumber(ARGV[2])
local all = 1
for i = 1, #KEYS do
    if redis.call('get', KEYS[i]) == ARGV[1] then
        local left = redis.call('pttl', KEYS[i])
        local px = keep
        if left > 0 and left < keep then
            px = left
        end
        redis.call('set', KEYS[i], ARGV[1] .. ':released', 'PX', px)
    else
        all = 0
    end
end
return all
