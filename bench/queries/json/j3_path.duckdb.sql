select sum(json_extract_string(payload, '$.props.price')::double) as price,
       sum(json_extract_string(payload, '$.props.items[1]')::int) as item1,
       max(json_extract_string(payload, '$.user.tags[0]')) as first_tag,
       count(json_extract_string(payload, '$.user.country')) as with_country
from events;
