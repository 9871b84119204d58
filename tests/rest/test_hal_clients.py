"""HAL clients of other ecosystems against a live server."""

from __future__ import annotations

from tests.support.node import run_module

KETTING_ROOT_TO_BLOG = """
import { Client } from 'ketting';
const client = new Client(process.argv[1]);
const root = client.go('/api/v1.2/');
const blogs = await (await root.follow('doc:blogs')).get();
const blog = await (await root.follow('doc:blog', { id: process.argv[2] })).get();
console.log(JSON.stringify({ total: blogs.data.totalBlogs, title: blog.data.title }));
"""


def test_ketting_follows_the_roots_links_to_the_blogs(live_server, blog):
    found = run_module(KETTING_ROOT_TO_BLOG, live_server.url, str(blog.pk))

    assert found == {"total": 1, "title": blog.title}
