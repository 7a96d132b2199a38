"""`{% section_cache block %}...{% endsection_cache %}`: one question section of the attempt
page, a fresh one filled from its template version's skeleton (`quizzes.presenters.skeletons`),
any other memoised by `quizzes.presenters.fragments` (see there for what each key holds)."""

from __future__ import annotations

from django import template

from quizzes.presenters import skeletons

register = template.Library()


class SectionCacheNode(template.Node):
    def __init__(self, nodelist, block):
        self.nodelist = nodelist
        self.block = block

    def render(self, context):
        block = self.block.resolve(context)
        return skeletons.render_section(block, context, lambda: self.nodelist.render(context))


@register.tag("section_cache")
def section_cache(parser, token):
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("section_cache takes one argument: the block")
    nodelist = parser.parse(("endsection_cache",))
    parser.delete_first_token()
    return SectionCacheNode(nodelist, parser.compile_filter(bits[1]))
