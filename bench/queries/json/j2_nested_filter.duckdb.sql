select count(*) as n, sum((payload -> 'props' ->> 'qty')::int) as qty
from events
where payload -> 'user' ->> 'country' = 'DE';
