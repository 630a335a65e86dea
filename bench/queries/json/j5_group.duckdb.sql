select payload -> 'user' ->> 'country' as country, count(*) as n,
       sum((payload -> 'props' ->> 'qty')::int) as qty
from events
where payload ->> 'type' in ('click', 'purchase')
group by 1
order by 1 nulls last;
