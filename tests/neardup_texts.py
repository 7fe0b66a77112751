"""Hand-written texts for the near-duplicate tests: one article, its re-templated, edited and
truncated copies, and other articles on the same subject (same vocabulary, different text)."""

ARTICLE = [
    "The town council met on Tuesday evening to discuss the future of the old railway "
    "station. The building has stood empty for almost twelve years, and several groups have "
    "proposed new uses for it. One group wants to turn the main hall into a covered market "
    "for local farmers, while another suggests a small museum about the history of the line.",
    "The mayor said that both ideas deserve careful study, but warned that the roof needs "
    "urgent repairs before any plan can go ahead. Engineers who inspected the site last "
    "spring found that water had damaged the wooden beams above the former ticket office. "
    "Residents who attended the meeting asked whether the council could apply for a regional "
    "grant, and the treasurer promised to report on the options at the next session in March.",
    "A decision on the roof is expected before the summer, and volunteers have offered to "
    "clear the platforms so that visitors can walk along them. Local historians point out "
    "that the station opened in 1887, when the branch line brought coal from the northern "
    "pits to the harbour, and that its iron canopy was made in a foundry only two streets away.",
    "Photographs from the archive show crowded platforms during the summer fairs, soldiers "
    "leaving in 1914 and the last steam locomotive arriving in 1962. Several shopkeepers hope "
    "a market would bring customers back to the quarter, whose bakery, tailor and hardware "
    "store closed during the past decade.",
    "Students from the technical college have drawn plans for solar panels on the roof of the "
    "goods shed, and a theatre company asked to rent the waiting room for rehearsals in the "
    "winter months. The council will publish the engineers' report on its website, and a "
    "public exhibition of the proposals is planned for the library in April.",
    "Opponents of the market fear that delivery vans would block the narrow lane behind the "
    "station, and the residents' association has asked for a traffic survey. The chairman of "
    "the historical society welcomed the debate and said that the building deserves better "
    "than another decade of neglect, broken windows and pigeons nesting under the canopy.",
]

# The same subject, vocabulary and names; different documents.
SAME_TOPIC = [
    [
        "The old railway station will get a new roof after the council approved a grant from "
        "the regional fund on Thursday. Work is due to start in May and should take about "
        "four months, the treasurer said. The engineers' report found rotten beams above the "
        "ticket office and a leaking gutter along the platform canopy.",
        "The market group and the museum group will present their plans to residents at the "
        "library in the autumn, once the roof is safe. The mayor thanked the volunteers who "
        "cleared the platforms in the spring and the students whose drawings of solar panels "
        "on the goods shed were shown at the last council session.",
        "Shopkeepers in the quarter said that any use of the building would be welcome after "
        "years in which the bakery and the hardware store closed. The historical society "
        "plans a series of talks on the branch line, the coal trains from the northern pits "
        "and the foundry that made the iron canopy in 1887.",
        "Traffic in the narrow lane behind the station remains the main worry of the "
        "residents' association, which has collected more than three hundred signatures "
        "asking for a survey before any market opens. The council said a survey would be "
        "commissioned together with the building work.",
    ],
    [
        "Visitors to the library can see an exhibition about the town's railway from this "
        "week. Old tickets, timetables and a signal lamp lent by the historical society are "
        "shown next to photographs of the station in its busiest years, when coal from the "
        "northern pits passed through on its way to the harbour.",
        "The curator said that many residents had brought family pictures of soldiers "
        "leaving in 1914 and of the summer fairs, when special trains ran from the villages. "
        "A model of the station built by students of the technical college shows the iron "
        "canopy and the goods shed as they looked before the line closed.",
        "The exhibition also presents the proposals for the empty building: the covered "
        "market for local farmers, the museum about the line and the rehearsal rooms asked "
        "for by a theatre company. Visitors are invited to vote for their favourite plan, "
        "and the results will be passed to the council before its decision in the summer.",
        "Guided walks along the old platforms start from the library every Saturday morning "
        "and are led by volunteers who helped to clear the site in the spring.",
    ],
]

TEMPLATE_A = ["Morning Herald | Home | Local | Sport | Weather | Contact",
              "Copyright 2024 Morning Herald. All rights reserved. Privacy policy."]
TEMPLATE_B = ["Valley Courier - news from the valley - Subscribe now",
              "Share this article: Facebook Twitter Email",
              "Most read: Flood warning lifted / School wins prize / Bus times change",
              "Valley Courier Ltd, Mill Street 4. Imprint. Cookie settings."]


def text(paragraphs: list[str]) -> str:
    return "\n".join(paragraphs)


def retemplated() -> str:
    """The article between another site's menu, share line, most-read box and footer,
    dated, and with its first paragraph as a standfirst repeated above it."""
    return text([TEMPLATE_B[0], "Posted 14 March 2024 by the news desk", ARTICLE[0],
                 TEMPLATE_B[1], *ARTICLE, TEMPLATE_B[2], TEMPLATE_B[3]])


def edited() -> str:
    """About 5 % of the words changed: substitutions, insertions, deletions."""
    changes = [("Tuesday", "Monday"), ("almost twelve", "nearly eleven"), ("covered", "weekly"),
               ("careful", "serious"), ("urgent", "immediate"), ("last spring", "in April"),
               ("regional grant", "national grant"), ("before the summer", "in June"),
               ("two streets away", "three streets away"), ("1962", "1963"),
               ("past decade", "last ten years"), ("winter months", "cold season"),
               ("in April", "in May"), ("broken windows and ", ""), ("the ", "this ", )]
    out = text(ARTICLE)
    for old, new in changes:
        out = out.replace(old, new, 1)
    return out


def truncated() -> str:
    """The last paragraph and the end of the one before cut off."""
    return text([*ARTICLE[:4], ARTICLE[4].split(". ")[0] + "."])
