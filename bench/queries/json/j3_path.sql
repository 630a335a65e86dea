-- #>> paths: a nested number, a nested array element, a nested string
select sum((payload::json #>> '{props,price}')::double precision) as price,
       sum((payload::json #>> '{props,items,1}')::int) as item1,
       max(payload::json #>> '{user,tags,0}') as first_tag,
       count(payload::json #>> '{user,country}') as with_country
from events;
